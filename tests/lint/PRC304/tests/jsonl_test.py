def test_roundtrip():  # Error: named *_test.py, the project wants test_*.py
    pass
