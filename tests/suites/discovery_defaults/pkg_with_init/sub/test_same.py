"""Same basename as ../test_same.py: fine inside packages."""


def test_same_sub():
    pass
