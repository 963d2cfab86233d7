"""Marks bound to names in a shared helper module (not a test module).

The suite root has no __init__.py, so pytest (prepend import mode) puts it
on sys.path and test modules import this as a top-level module.
"""

import os

import pytest

slow = pytest.mark.slow
requires_key = pytest.mark.skipif(
    not os.environ.get("PROCTOR_TEST_K"), reason="needs PROCTOR_TEST_K"
)
gpu16 = pytest.mark.gpu(min_vram_gb=16)
integration = pytest.mark.integration
