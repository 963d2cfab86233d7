def test_module_in_examples():
    pass
