"""Decorators of the suite that apply marks in ways proctor does not
follow: the item's markers are reported uncertain, with the decorator's
name. A decorator that names no mark leaves the markers as they are."""

import pytest

NAMES = ("slow",)


def mark_by_name(f):
    for name in NAMES:
        f = getattr(pytest.mark, name)(f)
    return f


def mark_factory(reason):
    def apply(f):
        return pytest.mark.skipif(False, reason=reason)(f)

    return apply


def plain(f):
    f.seen = True
    return f


@mark_by_name
def test_mark_by_name():
    pass


@mark_factory("no reason")
def test_mark_factory():
    pass


@plain
@pytest.mark.slow
def test_plain_decorator():
    pass
