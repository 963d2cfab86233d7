"""Visited after test_b.py."""


def test_c_inner():
    pass
