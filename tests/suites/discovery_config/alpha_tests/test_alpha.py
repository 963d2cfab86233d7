"""Second testpath."""


def test_alpha():
    pass
