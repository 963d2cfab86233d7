"""range() with literal arguments is known statically: ids are the ints."""

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
