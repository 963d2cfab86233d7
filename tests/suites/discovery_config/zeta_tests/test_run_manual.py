"""NOT collected: --ignore-glob *_manual.py."""


def test_run_manual():
    pass
