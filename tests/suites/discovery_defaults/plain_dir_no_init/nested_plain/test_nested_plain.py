"""Nested plain directory."""


def test_nested_plain():
    pass
