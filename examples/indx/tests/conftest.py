"""Shared fixtures and the --live opt-in."""

import pytest


def pytest_addoption(parser):
    parser.addoption("--live", action="store_true", help="run tests that hit real backends")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--live"):
        return
    skip = pytest.mark.skip(reason="talks to real services: pass --live")
    for item in items:
        if "live" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def sample_chunks():
    return [{"id": 1, "text": "a"}]
