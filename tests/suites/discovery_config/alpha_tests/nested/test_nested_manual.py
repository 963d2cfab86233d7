"""NOT collected: --ignore-glob matches at any depth."""


def test_nested_manual():
    pass
