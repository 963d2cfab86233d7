import pytest


def require_gpu(min_vram_gb=0):
    return pytest.mark.skipif(True, reason=f"needs a GPU with {min_vram_gb} GB")
