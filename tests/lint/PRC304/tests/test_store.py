def test_roundtrip():  # OK
    pass
