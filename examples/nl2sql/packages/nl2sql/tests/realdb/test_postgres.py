def test_postgres_adapter_introspects_schema():
    pass
