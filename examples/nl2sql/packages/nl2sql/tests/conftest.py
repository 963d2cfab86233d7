"""Marks everything under integration/ and realdb/ by path."""

import pytest


def pytest_collection_modifyitems(config, items):
    for item in items:
        parts = item.path.parts
        if "integration" in parts:
            item.add_marker(pytest.mark.integration)
        if "realdb" in parts:
            item.add_marker(pytest.mark.realdb)
