"""Stand-in for transformers.testing_utils: skip decorators."""

import importlib.util
import os
import unittest

_RUN_SLOW = os.environ.get("RUN_SLOW", "0").lower() in ("1", "true", "yes")


def is_torch_available():
    return importlib.util.find_spec("torch") is not None


def _vram_gb():
    if not is_torch_available():
        return 0
    import torch  # noqa: PLC0415

    if not torch.cuda.is_available():
        return 0
    return torch.cuda.get_device_properties(0).total_memory / 2**30


def slow(test_case):
    return unittest.skipUnless(_RUN_SLOW, "test is slow")(test_case)


def require_torch(test_case):
    return unittest.skipUnless(is_torch_available(), "test requires PyTorch")(test_case)


def require_torch_gpu(test_case):
    return unittest.skipUnless(_vram_gb() > 0, "test requires CUDA")(test_case)


def require_torch_large_accelerator(min_vram_gb=20):
    def decorator(test_case):
        return unittest.skipUnless(_vram_gb() >= min_vram_gb, f"test requires {min_vram_gb} GB of accelerator memory")(test_case)

    return decorator
