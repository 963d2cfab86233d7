import pytest


@pytest.mark.slow
def test_slow():
    pass


def test_fast():
    pass
