"""NOT collected: matches norecursedirs skip_*."""


def test_skipped_dir():
    pass
