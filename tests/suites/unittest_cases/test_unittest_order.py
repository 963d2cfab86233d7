"""unittest.TestCase collection follows unittest.TestLoader, not pytest.

- Method names are taken from dir(cls) (so inherited ones too), filtered by
  the prefix "test" (TestLoader.testMethodPrefix, *not* python_functions),
  kept only if callable, then sorted by plain string comparison: uppercase
  before "_" before lowercase, digits before letters.  Definition order and
  base/subclass order do not matter, unlike pytest-style classes.
- The class name does not matter (python_classes is not consulted).
"""

import unittest

import pytest


class TestAlphabetical(unittest.TestCase):
    # Defined out of order on purpose.  Collected order:
    # testCamel, test_1, test_Beta, test_alpha, test_zeta
    def test_zeta(self):
        pass

    def test_alpha(self):
        pass

    def test_Beta(self):
        pass

    def testCamel(self):
        pass

    def test_1(self):
        pass

    def helper(self):
        pass

    # "test" prefix but not callable: skipped by TestLoader.
    test_data = [1, 2]


class CheckWithoutTestPrefix(unittest.TestCase):
    # Collected although the name does not start with "Test".
    def test_it(self):
        pass


class TestRunTestOnly(unittest.TestCase):
    # No test* methods: pytest falls back to a single "runTest" item.
    def runTest(self):
        pass


class TestRunTestAndTests(unittest.TestCase):
    # runTest is only used when there are no test* methods.
    def runTest(self):
        pass

    def test_real(self):
        pass


class TestNothing(unittest.TestCase):
    # Neither test* methods nor runTest: a collector without items.
    def helper(self):
        pass


class BaseCase(unittest.TestCase):
    # Collected itself (it is a concrete TestCase).
    def test_base_z(self):
        pass

    def test_base_a(self):
        pass


class TestDerived(BaseCase):
    # Inherited and own methods are merged and sorted together:
    # test_base_a, test_base_z, test_derived_m
    def test_derived_m(self):
        pass


class PlainMixin:
    # Not a TestCase: collected only through the class that mixes it in.
    # As a pytest-style class its name does not match "Test" either.
    def test_from_mixin(self):
        pass


class TestWithMixin(PlainMixin, unittest.TestCase):
    # test_from_mixin sorts after test_at_home.
    def test_zz_own(self):
        pass

    def test_at_home(self):
        pass


class TestDisabledCase(unittest.TestCase):
    # __test__ = False switches a TestCase off too.
    __test__ = False

    def test_never(self):
        pass


class TestOneMethodDisabled(unittest.TestCase):
    def test_on(self):
        pass

    def test_off(self):
        pass

    # A method's own __test__ = False drops just that method.
    test_off.__test__ = False


@unittest.skip("skipped by unittest, but still collected")
class TestSkippedCase(unittest.TestCase):
    # unittest.skip is not a pytest mark: no markers, items still collected.
    def test_skipped(self):
        pass


@pytest.mark.slow
class TestMarkedCase(unittest.TestCase):
    # pytest marks work on TestCase classes and methods as usual.
    @pytest.mark.slow
    def test_marked(self):
        pass


def test_plain_function_next_to_cases():
    pass
