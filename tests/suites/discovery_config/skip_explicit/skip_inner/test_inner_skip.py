"""NOT collected: below the testpath, norecursedirs applies again."""


def test_inner_skip():
    pass
