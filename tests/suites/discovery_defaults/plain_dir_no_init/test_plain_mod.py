"""No __init__.py: imported as the top-level module test_plain_mod."""


def test_plain_mod():
    pass
