import warnings


def test_warns():
    warnings.warn("old", UserWarning)
