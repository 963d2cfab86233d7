"""Underscore (0x5f) sorts between uppercase and lowercase."""


def test__underscore():
    pass
