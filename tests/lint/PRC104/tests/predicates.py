import pytest


def require_gpu(min_vram_gb=0):
    return pytest.mark.skipif(True, reason="no GPU")


def slow(function):
    return function


def nightly(function):
    return function
