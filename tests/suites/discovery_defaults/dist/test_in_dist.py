"""NOT collected: dist is in the default norecursedirs."""


def test_in_dist():
    pass
