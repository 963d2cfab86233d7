"""Does not match python_files."""


def test_in_helper():
    pass
