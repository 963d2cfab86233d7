"""Collected."""


def test_nested_ok():
    pass
