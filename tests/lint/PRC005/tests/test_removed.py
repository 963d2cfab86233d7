import pytest


@pytest.mark.requires_gpu  # Error
def test_removed():
    pass


@pytest.mark.gpu  # OK
def test_other_marker():
    pass


class TestRemoved:
    pytestmark = [pytest.mark.requires_gpu]  # Error

    def test_a(self):
        pass

    def test_b(self):
        pass


@pytest.mark.old_gpu(min_vram_gb=8)  # Error
def test_replaced_keeps_arguments():
    pass


@pytest.mark.parametrize("x", [1, pytest.param(2, marks=pytest.mark.old_gpu)])  # Error
def test_replaced_in_param(x):
    pass
