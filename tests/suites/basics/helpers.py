"""Not a test file (does not match test_*.py / *_test.py)."""


def test_in_helpers():
    pass
