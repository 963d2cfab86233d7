import pytest


def test_passes():
    pass


@pytest.mark.slow
def test_slow():
    pass


def test_skips_inside():
    pytest.importorskip("another_package_that_is_not_installed")
