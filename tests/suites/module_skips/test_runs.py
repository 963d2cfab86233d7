def test_runs():
    pass
