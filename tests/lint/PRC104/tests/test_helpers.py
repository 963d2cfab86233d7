import pytest

from tests.predicates import require_gpu, slow

torch = pytest.importorskip("os")


@require_gpu(min_vram_gb=8)
def test_uses_the_gpu():  # OK
    pass


@slow
def test_takes_long():  # OK
    pass
