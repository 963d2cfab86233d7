def test_unit():
    assert 1 + 1 == 2
