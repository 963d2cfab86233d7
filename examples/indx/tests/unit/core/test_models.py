def test_chunk_serializes_with_sorted_keys():
    pass


def test_space_carries_schema_version():
    pass
