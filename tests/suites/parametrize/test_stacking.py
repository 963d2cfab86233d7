"""Stacked decorators, class-level and module-level parametrize.

parametrize marks are applied in iter_markers() order: the decorator
closest to the def first, then the ones above it, then the class's, then the
module's pytestmark.  Each call multiplies the existing sets (existing ones
in the outer loop), and the ids are joined with "-" in that same order.
"""

import pytest

pytestmark = pytest.mark.parametrize("m", ["M"])


@pytest.mark.parametrize("x", [0, 1])
@pytest.mark.parametrize("y", [2, 3])
def test_two_stacked(x, y, m):
    # Items: [2-0-M], [2-1-M], [3-0-M], [3-1-M].
    pass


@pytest.mark.parametrize("z", ["z"])
@pytest.mark.parametrize("x", [0, 1])
@pytest.mark.parametrize("y", [2])
def test_three_stacked(x, y, z, m):
    pass


@pytest.mark.parametrize("c", ["c1", "c2"])
class TestClassParametrize:
    # The class mark applies to every method (each must accept "c").
    def test_uses_class_param(self, c, m):
        pass

    @pytest.mark.parametrize("x", [7, 8])
    def test_method_and_class(self, x, c, m):
        # Method's own first: [7-c1-M], [7-c2-M], [8-c1-M], [8-c2-M].
        pass


class TestClassBodyPytestmark:
    pytestmark = [pytest.mark.parametrize("k", [1, 2])]

    def test_k(self, k, m):
        pass
