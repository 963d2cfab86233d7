def test_schema_retrieval_chinook_finds_invoice():
    pass


def test_local_embedder_indexes_chinook():
    pass
