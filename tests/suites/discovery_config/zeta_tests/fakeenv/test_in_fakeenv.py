"""NOT collected: fakeenv/ holds pyvenv.cfg."""


def test_in_fakeenv():
    pass
