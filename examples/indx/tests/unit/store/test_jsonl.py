from indx.store.jsonl import JsonlStore


def test_jsonl_store_round_trips_core_types(sample_chunks, tmp_path):
    store = JsonlStore(tmp_path / "chunks.jsonl")
    store.write(sample_chunks)
    assert store.read() == sample_chunks
    assert store.search("a") == sample_chunks
