"""Tests of src/pkg/config.py, which does not exist."""  # Error


def test_defaults():
    pass
