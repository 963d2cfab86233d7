"""NOT collected: build is in the default norecursedirs."""


def test_in_build():
    pass
