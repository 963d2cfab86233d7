"""Uppercase sorts before lowercase: this directory comes first."""


def test_upper_dir():
    pass
