"""Resource predicates: skip marks with self-documenting reasons."""

import os
import sys

import pytest


def _vram_gb():
    try:
        import torch  # noqa: PLC0415
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    return torch.cuda.get_device_properties(0).total_memory / 2**30


def _skip_resources():
    return os.environ.get("_MELLEA_SKIP_RESOURCE_CHECKS") == "1"


def require_gpu(min_vram_gb=None):
    vram = _vram_gb()
    if _skip_resources():
        return pytest.mark.skipif(False, reason="resource checks skipped")
    if vram is None:
        return pytest.mark.skipif(True, reason="no GPU detected")
    need = min_vram_gb or 0
    return pytest.mark.skipif(vram < need, reason=f"Insufficient VRAM: {vram:.0f} GB < {need} GB required")


def require_ram(min_gb):
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        pages = 0
    have = pages / 2**30
    return pytest.mark.skipif(not _skip_resources() and have < min_gb, reason=f"Insufficient RAM: {have:.0f} GB < {min_gb} GB required")


def require_api_key(*names):
    missing = [n for n in names if not os.environ.get(n)]
    return pytest.mark.skipif(bool(missing), reason=f"{', '.join(missing)} not set")


def require_package(name):
    import importlib.util  # noqa: PLC0415

    return pytest.mark.skipif(importlib.util.find_spec(name) is None, reason=f"package {name} not installed")


def require_python(version):
    return pytest.mark.skipif(sys.version_info < tuple(version), reason=f"requires Python >= {version}")
