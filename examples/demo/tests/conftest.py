import pytest


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request):
    return request.param
