"""ids given as a callable: called once per value at collection time."""

import pytest


def make_id(value):
    return f"case-{value}"


@pytest.mark.parametrize("x", [1, 2], ids=make_id)
def test_named_function_ids(x):
    pass


@pytest.mark.parametrize("x", [1, 2], ids=lambda v: f"L{v * 10}")
def test_lambda_ids(x):
    pass


@pytest.mark.parametrize("x", [3, 4], ids=str)
def test_builtin_ids(x):
    pass


@pytest.mark.parametrize("x", [5, 6], ids=lambda v: None)
def test_callable_returning_none(x):
    # None from the callable means "use the automatic id": [5], [6].
    pass


@pytest.fixture(params=[1, 2], ids=lambda p: f"fx{p}")
def fixture_with_callable_ids(request):
    return request.param


def test_fixture_callable_ids(fixture_with_callable_ids):
    pass
