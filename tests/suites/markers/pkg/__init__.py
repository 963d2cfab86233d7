"""A package __init__: its pytestmark is NOT applied to the tests inside."""

import pytest

pytestmark = pytest.mark.slow
