"""Base classes carrying marks, in a module that is never collected."""

import pytest

# Never reaches any item: this module is not a test module.
pytestmark = pytest.mark.module_marker("base_classes")


@pytest.mark.base_marker
class MarkedBase:
    def test_inherited(self):
        pass

    @pytest.mark.fast
    def test_inherited_with_mark(self):
        pass


class BodyMarkedBase:
    pytestmark = [pytest.mark.base_marker("body")]
