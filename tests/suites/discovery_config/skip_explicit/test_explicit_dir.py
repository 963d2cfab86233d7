"""Collected: a testpath is visited even though its name matches norecursedirs skip_*."""


def test_explicit_dir():
    pass
