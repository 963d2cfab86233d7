import pytest


@pytest.fixture
def repo():
    # Overrides conftest's `repo`, without requesting `db`.
    return []


def test_overridden_repo(repo):
    pass


def test_autouse_only():
    pass


def test_autouse_and_db(db):
    pass
