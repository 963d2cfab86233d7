"""NOT collected: matches norecursedirs legacy."""


def test_in_legacy_dir():
    pass
