"""Shared fixtures and the marker implication hook."""

import pytest


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("credentialed") and not item.get_closest_marker("live"):
            item.add_marker(pytest.mark.live)


@pytest.fixture(scope="session")
def ensure_tau2_data():
    return "data/tau2"
