"""test_A... sorts before test__ and test_a."""


def test_A_upper():
    pass
