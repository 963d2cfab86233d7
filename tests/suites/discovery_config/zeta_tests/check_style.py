"""Matches the extra python_files pattern check_*.py."""


def test_check_style():
    pass
