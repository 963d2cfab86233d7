import pytest

from indx.core.models import SCHEMA_VERSION, Chunk, Space


def test_chunk_serializes_with_sorted_keys():
    assert Chunk(1, "a").to_json() == '{"id": 1, "text": "a"}'


def test_space_carries_schema_version():
    assert Space("docs").schema_version == SCHEMA_VERSION
    with pytest.raises(ValueError):
        Space("")
