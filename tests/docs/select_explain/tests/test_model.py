"""The model tests."""

import predicates


def test_small_model():
    pass


# The big one needs a GPU.

@predicates.require_gpu(min_vram_gb=24)
def test_big_model():
    pass
