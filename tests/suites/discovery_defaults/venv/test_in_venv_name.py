"""NOT collected: venv is in the default norecursedirs (by name)."""


def test_in_venv_name():
    pass
