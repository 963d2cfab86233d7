import pytest


@pytest.mark.live  # Error
def test_live_unit():
    pass


@pytest.mark.integration
@pytest.mark.live  # OK
def test_live_integration():
    pass


@pytest.mark.integration
@pytest.mark.live
@pytest.mark.mock  # Error
def test_mock_and_live():
    pass
