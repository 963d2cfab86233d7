"""A conftest's pytestmark is not applied either."""

import pytest

pytestmark = pytest.mark.fast
