"""A module in a package."""


def test_pkg_mod():
    pass
