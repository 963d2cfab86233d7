import pytest


def test_store_empty_returns_none():  # OK
    pass


def test_store_empty_file_returns_no_rows():  # OK: more words are fine
    pass


def test_store():  # Error
    pass


def test_store_empty():  # Error
    pass


class TestStore:
    def test_load_missing_file_raises(self):  # OK
        pass

    def test_load(self):  # Error
        pass


@pytest.mark.parametrize("x", [1, 2])  # Error
def test_parametrized(x):
    pass
