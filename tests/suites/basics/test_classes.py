"""Classes: which are collected, and in which order their tests appear."""

import abc

import pytest


class TestPlain:
    # Methods are collected in definition order (class __dict__ order).
    def test_b(self):
        pass

    def test_a(self):
        pass

    def helper(self):
        pass

    # A non-callable attribute matching test* is not collected.
    test_value = 5


class TestingHelpers:
    # python_classes is a prefix too: "Testing..." starts with "Test".
    def test_collected(self):
        pass


class HelperTests:
    # Does not start with "Test": not collected.
    def test_not_collected(self):
        pass


class TestWithInit:
    # Not collected: pytest warns "cannot collect test class 'TestWithInit'
    # because it has a __init__ constructor" and yields no items.
    def __init__(self):
        pass

    def test_never(self):
        pass


class BaseWithInit:
    def __init__(self):
        pass


class TestInheritsInit(BaseWithInit):
    # An inherited __init__ also prevents collection (same warning).
    def test_never(self):
        pass


class TestWithNew:
    # A __new__ also prevents collection (warning "has a __new__ constructor").
    def __new__(cls):
        return super().__new__(cls)

    def test_never(self):
        pass


class TestDisabled:
    __test__ = False

    def test_never(self):
        pass


class TestDisabledChild(TestDisabled):
    # __test__ is an inherited attribute: still disabled.
    def test_never_either(self):
        pass


class TestReenabledChild(TestDisabled):
    # Re-enabled explicitly: the inherited test_never comes first, then ours.
    # The inherited item's location is the base class's method.
    __test__ = True

    def test_reenabled(self):
        pass


class TestOuter:
    def test_outer(self):
        pass

    class TestInner:
        def test_inner(self):
            pass

        class TestInnermost:
            def test_innermost(self):
                pass

    class NotATestClass:
        def test_hidden(self):
            pass

    def test_outer_after_inner(self):
        pass


class TestStaticAndClassMethods:
    @staticmethod
    def test_static():
        pass

    @classmethod
    def test_classmethod(cls):
        pass

    def test_regular(self):
        pass


class AbstractBase(abc.ABC):
    @abc.abstractmethod
    def make(self):
        raise NotImplementedError

    def test_from_abstract(self):
        pass


class TestAbstract(AbstractBase):
    # Still abstract (make is not implemented): not collected, no warning.
    def test_never(self):
        pass


class TestConcrete(AbstractBase):
    # Concrete: the inherited test comes first (base-class tests precede the
    # subclass's own tests), then the subclass's.
    def make(self):
        return 1

    def test_concrete(self):
        pass


class TestShadowed(TestPlain):
    # Rebinding an inherited test name to a non-function hides it; the other
    # inherited tests (test_b, test_a) are collected, in the base's order.
    test_a = None

    def test_own(self):
        pass


class TestOverride(TestPlain):
    # An overridden test keeps the *subclass's* position: inherited
    # test_a first, then test_own2 and test_b in this class's order.
    def test_own2(self):
        pass

    def test_b(self):
        pass


class TestEmpty:
    pass


@pytest.fixture
def not_a_class():
    return 1
