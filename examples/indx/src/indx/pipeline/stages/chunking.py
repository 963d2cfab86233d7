"""The chunking stage: fixed-size windows over a document's text."""

from indx.core.models import Chunk


def chunk(text, size):
    if size <= 0:
        raise ValueError("size must be positive")
    return [Chunk(i, text[start:start + size]) for i, start in enumerate(range(0, len(text), size))]
