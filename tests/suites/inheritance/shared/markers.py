"""Marks bound to names in a helper module, imported by the test modules."""

import pytest

slow = pytest.mark.slow
