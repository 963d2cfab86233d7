"""Error: SyntaxError while importing the module."""


def test_before_the_error():
    pass


def test_broken(:
    pass
