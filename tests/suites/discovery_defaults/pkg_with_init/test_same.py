"""Same basename as sub/test_same.py: fine inside packages."""


def test_same_top():
    pass
