def test_jsonl_store_round_trips_core_types(sample_chunks):
    assert sample_chunks
