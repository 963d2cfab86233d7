def test_after_golden():
    pass
