"""Base classes (not a test module: base.py matches no python_files glob).

pytestmark below applies only to items *collected in this module*, and this
module is never collected, so it reaches no item: inherited tests get the
markers of the module that collects them, not of the module that defines
them.
"""

import pytest

pytestmark = pytest.mark.slow


@pytest.mark.base_marker
class BaseTests:
    # Not collected here (not a test module) nor by name anywhere (the name
    # does not start with "Test"): only through subclasses.
    def test_base_first(self):
        pass

    def test_base_overridden(self):
        pass

    def test_base_last(self):
        pass


class TestReexported:
    # Collected in every test module that imports it (pytest collects
    # imported classes under the importing module's node id).
    def test_reexported(self):
        pass


def test_shared_function():
    # Likewise collected in every test module that imports it.
    pass
