"""NOT collected: .* is in the default norecursedirs."""


def test_in_hidden():
    pass
