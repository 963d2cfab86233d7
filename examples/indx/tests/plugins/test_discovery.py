# Entry-point discovery against tests/plugins/fake_plugin. It sits outside
# tests/unit and tests/integration, so no CI job's paths reach it.
def test_fake_plugin_entry_point_resolves():
    pass
