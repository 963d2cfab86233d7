"""Tests of src/pkg/store/csv.py, which was removed."""  # Error


def test_rows():
    pass


def test_header():
    pass
