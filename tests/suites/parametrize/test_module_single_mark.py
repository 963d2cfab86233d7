"""A module-level pytestmark that is a single parametrize mark (not a list).

Every test in the module must accept "mode", and shares the same ids.
"""

import pytest

pytestmark = pytest.mark.parametrize("mode", ["fast", "slow_mode"], ids=["F", "S"])


def test_first(mode):
    pass


class TestInClass:
    def test_method(self, mode):
        pass


def test_second(mode):
    pass
