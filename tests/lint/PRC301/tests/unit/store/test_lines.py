"""Tests of the package src/pkg/store/lines/."""  # OK


def test_lines():
    pass
