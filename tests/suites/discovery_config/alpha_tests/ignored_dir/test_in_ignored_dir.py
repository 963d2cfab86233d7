"""NOT collected: --ignore of the directory."""


def test_in_ignored_dir():
    pass
