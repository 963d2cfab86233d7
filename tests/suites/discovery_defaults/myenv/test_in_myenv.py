"""NOT collected: myenv/ holds pyvenv.cfg, so it is a virtualenv."""


def test_in_myenv():
    pass
