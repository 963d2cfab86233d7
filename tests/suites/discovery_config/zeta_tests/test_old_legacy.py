"""NOT collected: collect_ignore_glob *_legacy.py."""


def test_old_legacy():
    pass
