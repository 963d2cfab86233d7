"""Marks from pytest.param(marks=...) come after all function decorators."""

import pytest

from shared_marks import slow


@pytest.mark.first
@pytest.mark.parametrize(
    "x",
    [
        pytest.param(1, marks=pytest.mark.fast),
        pytest.param(2, marks=[pytest.mark.slow, pytest.mark.net]),
        pytest.param(3, marks=(slow,)),
        4,
    ],
)
@pytest.mark.second
def test_param_marks(x):
    # [1]: second, parametrize, first, fast
    # [2]: second, parametrize, first, slow, net
    pass


@pytest.mark.parametrize("y", [pytest.param("a", marks=pytest.mark.third)])
@pytest.mark.parametrize("x", [pytest.param(1, marks=pytest.mark.first), 2])
def test_param_marks_stacked(x, y):
    # Param marks in the order the parametrize calls are applied (x's first).
    pass
