import pytest


def test_direct(db):
    pass


@pytest.mark.usefixtures("db")
def test_usefixtures():
    pass


def test_through_another_fixture(repo):
    pass


def test_unrelated(plain):
    pass


def test_nothing():
    pass


@pytest.mark.parametrize("n", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_parametrized(n, db):
    pass


@pytest.mark.parametrize("db", ["given"])
def test_direct_parameter_named_db(db):
    pass


@pytest.mark.usefixtures("repo")
class TestClassUsefixtures:
    @pytest.mark.integration
    def test_method(self):
        pass


class TestPlain:
    def test_method(self, plain):
        pass
