"""NOT collected: only standalone/explicit_file.py is a testpath."""


def test_not_in_testpaths():
    pass
