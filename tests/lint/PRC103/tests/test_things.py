import pytest


@pytest.mark.unit
@pytest.mark.slow
def test_unit():
    pass


@pytest.mark.e2e
def test_e2e():
    pass
