"""Digits sort before letters."""


def test_1_digit():
    pass
