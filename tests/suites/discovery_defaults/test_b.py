"""A file between two directories."""


def test_b():
    pass
