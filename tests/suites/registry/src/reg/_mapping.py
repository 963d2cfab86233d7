PLUGINS = {
    "Beta": ("reg.plugins.b", "beta"),
    "Alpha": ("reg.plugins.a", "alpha"),
    "Gamma": ("reg.plugins.b", "gamma"),
}
