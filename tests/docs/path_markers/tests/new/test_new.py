import warnings


def test_warns():
    warnings.warn("new", UserWarning)
