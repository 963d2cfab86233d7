"""Skipped whole by pytest at import: one skip, not three."""
import pytest

np = pytest.importorskip("a_package_that_is_not_installed_here")


def test_one():
    pass


def test_two():
    pass


@pytest.mark.slow
def test_three():
    pass
