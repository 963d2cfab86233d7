"""Suite functions used as decorators that apply marks to what they
decorate (python-dateutil's `@mark_tzlocal_nix`): pytest sees the marks
in the order they are applied, so the first one applied comes first."""

import sys

import pytest

IS_WIN = sys.platform.startswith("win")

SHARED = [pytest.mark.first, pytest.mark.data(3)]


def mark_unix(f):
    marks = [
        pytest.mark.net,
        pytest.mark.skipif(IS_WIN, reason="requires Unix"),
    ]

    for mark in reversed(marks):
        f = mark(f)

    return f


def mark_forward(func):
    for m in SHARED:
        func = m(func)
    return func


def mark_returned(f):
    """One mark, returned applied."""
    return pytest.mark.integration(f)


def mark_steps(f):
    f = pytest.mark.second(f)
    f = pytest.mark.timeout(5)(f)
    return f


def mark_inline(f):
    for m in (pytest.mark.unit, pytest.mark.third):
        f = m(f)
    return f


@mark_unix
@pytest.mark.parametrize("tzvar", ["UTC", "GMT0"])
def test_loop_reversed(tzvar):
    pass


@pytest.mark.slow
@mark_unix
def test_below_a_mark():
    pass


@mark_forward
@mark_returned
def test_module_list_and_return():
    pass


@mark_steps
@pytest.mark.fast
@mark_inline
def test_steps_and_inline_tuple():
    pass


class TestInClass:
    @mark_unix
    def test_method(self):
        pass
