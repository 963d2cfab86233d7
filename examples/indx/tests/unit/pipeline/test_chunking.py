import pytest

from indx.pipeline.stages.chunking import chunk


def test_chunker_empty_document_yields_nothing():
    assert chunk("", 64) == []
    with pytest.raises(ValueError):
        chunk("text", 0)


@pytest.mark.parametrize("size", [64, 128])
def test_chunker_respects_size(size):
    assert all(len(c.text) <= size for c in chunk("x" * 300, size))
