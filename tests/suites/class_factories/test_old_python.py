def test_only_on_old_python():
    pass
