import pytest


def test_columns(request):
    assert request.config.getoption("columns") == "min,mean"


@pytest.mark.parametrize("n", [1, 2])
def test_level(request, n):
    assert request.config.getoption("level") == 3
