"""NOT collected: collect_ignore in conftest.py."""


def test_conf_ignored():
    pass
