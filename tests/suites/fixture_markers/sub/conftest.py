import pytest


@pytest.fixture(autouse=True)
def audit():
    yield
