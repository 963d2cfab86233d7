"""Only this module's own pytestmark applies."""

import pytest

pytestmark = pytest.mark.unit


def test_in_package():
    pass
