"""Class and module marks, and how they combine with function marks."""

import pytest

from base_classes import BodyMarkedBase, MarkedBase

pytestmark = [pytest.mark.module_marker, pytest.mark.unit]


@pytest.mark.class_marker
class TestDecorated:
    @pytest.mark.slow
    def test_method(self):
        # slow (function), class_marker (class), module_marker, unit (module)
        pass

    def test_plain(self):
        pass


@pytest.mark.first
@pytest.mark.second
class TestClassStacked:
    pytestmark = [pytest.mark.third]

    def test_order(self):
        # Class: third (body), second, first (decorators bottom-up: each
        # decorator appends to the class's own pytestmark list).
        pass


@pytest.mark.class_marker
class TestFromBases(MarkedBase, BodyMarkedBase):
    # MRO: TestFromBases, MarkedBase, BodyMarkedBase, object.  Class marks
    # base-first (reverse MRO): base_marker("body"), base_marker, class_marker.
    def test_own(self):
        pass


@pytest.mark.nested
class TestOuter:
    @pytest.mark.class_marker
    class TestInner:
        def test_nested(self):
            # Function, then TestInner's, then TestOuter's, then module.
            pass


class TestSubclassAddsMark(TestDecorated):
    # Inherits TestDecorated's class_marker via the MRO; the inherited
    # test_method keeps its own slow.
    pytestmark = pytest.mark.fast
