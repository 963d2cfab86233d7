"""Collected normally, whatever happens in the neighbouring files."""


def test_good():
    pass


class TestGood:
    def test_method(self):
        pass
