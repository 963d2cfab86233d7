"""Tests of src/pkg/store/jsonl.py."""  # OK


def test_load_empty_file():
    pass
