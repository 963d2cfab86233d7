def test_from_a_path_rule():  # OK
    pass
