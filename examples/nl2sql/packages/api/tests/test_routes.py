def test_meta_route_returns_version():
    pass


def test_schema_route_uses_overridden_engine():
    pass
