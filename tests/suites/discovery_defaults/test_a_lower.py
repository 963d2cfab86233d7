"""Lowercase after uppercase and underscore."""


def test_a_lower():
    pass
