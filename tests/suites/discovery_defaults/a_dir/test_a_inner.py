"""Visited before test_b.py: a_dir sorts first."""


def test_a_inner():
    pass
