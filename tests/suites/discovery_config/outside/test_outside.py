"""NOT collected: not under any testpath."""


def test_outside():
    pass
