import pytest

# The same rules as proctor.toml's [fixtures.*] tables, in the same order.
RULES = {"db": ["integration", "slow"], "audit": ["audited"]}


def pytest_collection_modifyitems(items):
    for item in items:
        for fixture, markers in RULES.items():
            if fixture in item.fixturenames:
                for marker in markers:
                    item.add_marker(marker)


@pytest.fixture
def db():
    return "db"


@pytest.fixture
def repo(db):
    return [db]


@pytest.fixture
def plain():
    return 1
