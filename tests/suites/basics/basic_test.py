"""Matches the default "*_test.py" pattern."""


def test_suffix_file():
    pass
