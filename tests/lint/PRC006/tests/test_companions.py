import pytest


@pytest.mark.qualitative  # Error
def test_alone():
    pass


@pytest.mark.e2e
@pytest.mark.qualitative  # OK
def test_with_companion():
    pass


@pytest.mark.smoke
@pytest.mark.qualitative  # OK
def test_with_implied_companion():
    pass


@pytest.mark.judge  # Error
def test_implied_without_companion():
    pass
