def test_ok():
    pass


def test_first_bad():
    assert 1 == 2


def test_second_bad():
    assert "a" == "b"
