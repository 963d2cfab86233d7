import pytest


def always_pass(value):
    return True


@pytest.fixture(scope="module", params=[(always_pass, 1), [always_pass], (always_pass, 2)])
def validator(request):
    return request.param


def test_first(validator):
    pass


@pytest.mark.parametrize("validator", [1, 2])
def test_direct(validator):
    pass


def test_second(validator):
    pass


def test_third(validator):
    pass
