def test_hidden_by_conftest():
    pass
