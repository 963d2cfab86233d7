import pytest

pytest_plugins = ["pytester"]


@pytest.fixture
def plugin_run(pytester):
    return pytester
