"""Collected: norecursedirs no longer contains .*."""


def test_dotdir_collected():
    pass
