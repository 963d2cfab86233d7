"""Collected: norecursedirs no longer contains build."""


def test_build_collected():
    pass
