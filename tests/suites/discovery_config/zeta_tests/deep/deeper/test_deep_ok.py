"""Collected."""


def test_deep_ok():
    pass
