"""Collected although it matches no python_files pattern: it is named in testpaths."""


def test_explicit():
    pass
