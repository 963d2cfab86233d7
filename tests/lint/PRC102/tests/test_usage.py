import pytest


@pytest.mark.slow
def test_slow():
    pass


@pytest.mark.e2e("full stack")
def test_end_to_end():
    pass
