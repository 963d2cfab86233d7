"""NOT collected: collect_ignore of the directory."""


def test_conf_ignored_dir():
    pass
