def test_ignored_on_python_3():
    pass
