"""First testpath: collected first although it sorts last."""


def test_zeta():
    pass
