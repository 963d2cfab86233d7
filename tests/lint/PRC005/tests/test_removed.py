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
