import pytest


@pytest.mark.parametrize("n", range(6))
def test_get(n):
    assert n >= 0


def test_retry():
    attempts = 3
    assert attempts == 2


@pytest.mark.slow
def test_soak():
    pass
