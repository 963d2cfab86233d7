"""Error: this file is latin-1 without a coding declaration."""


def test_café():
    pass


def test_plain():
    s = "été"
