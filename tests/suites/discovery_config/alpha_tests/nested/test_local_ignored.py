"""NOT collected: collect_ignore in alpha_tests/nested/conftest.py."""


def test_local_ignored():
    pass
