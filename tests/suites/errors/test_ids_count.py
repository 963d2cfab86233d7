import pytest


# pytest fails the module: three ids for two parameter sets.
@pytest.mark.parametrize("x", [1, 2], ids=["one", "two", "three"])
def test_too_many_ids(x):
    pass


# An empty ids list is allowed.
@pytest.mark.parametrize("x", [1, 2], ids=[])
def test_no_ids(x):
    pass
