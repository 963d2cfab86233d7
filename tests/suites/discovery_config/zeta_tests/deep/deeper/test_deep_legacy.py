"""NOT collected: collect_ignore_glob matches at any depth."""


def test_deep_legacy():
    pass
