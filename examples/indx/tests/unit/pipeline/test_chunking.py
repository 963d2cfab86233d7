import pytest


def test_chunker_empty_document_yields_nothing():
    pass


@pytest.mark.parametrize("size", [64, 128])
def test_chunker_respects_size(size):
    assert size > 0
