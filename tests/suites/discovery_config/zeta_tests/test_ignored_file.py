"""NOT collected: --ignore in addopts."""


def test_ignored_file():
    pass
