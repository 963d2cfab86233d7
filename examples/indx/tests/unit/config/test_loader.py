def test_env_overrides_indx_toml():
    pass
