"""Builtins known statically: range() with literal arguments (ids are the ints) and ids=str."""

import pytest


@pytest.mark.parametrize("n", range(3))
def test_range_stop(n):
    pass


@pytest.mark.parametrize("n", range(1, 10, 4))
def test_range_step(n):
    pass


@pytest.mark.parametrize("n", range(5, 0, -2))
def test_range_negative_step(n):
    pass


@pytest.mark.parametrize("n", range(0))
def test_range_empty(n):
    # An empty range is an empty parameter set: one NOTSET item, skipped.
    pass


@pytest.mark.parametrize("n", range(2))
@pytest.mark.parametrize("s", ["a", "b"])
def test_range_stacked(n, s):
    pass


@pytest.mark.parametrize("v", ["a b", 1, 2.5, None, True, "é"], ids=str)
def test_ids_str(v):
    # ids=str: pytest calls str() on each value and escapes the result.
    pass


@pytest.mark.parametrize("a, b", [(1, "x"), (2, "y")], ids=str)
def test_ids_str_pairs(a, b):
    # One str() per value, joined with "-".
    pass
