"""Module-level test functions: what is and is not collected.

The default ``python_functions`` is the *prefix* ``test`` (not ``test_``), so
``testNoUnderscore``, ``tests_plural`` and a function named just ``test`` are
all collected.  Items appear in the order of the module ``__dict__``.
"""

import pytest


def test_sync():
    pass


async def test_async():
    # Collected like any other function; running it would need a plugin, but
    # collection does not care.
    pass


def testNoUnderscore():
    pass


def tests_plural():
    pass


def test():
    pass


def _test_private():
    # Does not start with "test": not collected.
    pass


def helper_test():
    # "test" must be a prefix: not collected.
    pass


def test_disabled():
    pass


# __test__ = False on a function switches it off.
test_disabled.__test__ = False


@pytest.fixture
def test_fixture_named_like_a_test():
    # A fixture is never collected as a test, whatever its name.
    return 1


def test_uses_fixture(test_fixture_named_like_a_test):
    pass


# Names matching test* that are not functions are not collected.
test_data = [1, 2, 3]
test_count = 3
test_text = "not a test"
test_none = None
TEST_CONSTANT = 1


def test_redefined():
    # This first definition is replaced below.  The item keeps this
    # definition's *position* in the module (dict insertion order) but its
    # location is the second definition's.
    pass


def test_after_redefined():
    pass


def test_redefined():  # noqa: F811
    pass


# Binding another name to a test function collects it twice, once per name;
# the alias's location (file/line) is test_sync's.
test_alias = test_sync

# A lambda bound to a test* name IS a function: collected as "test_lambda".
test_lambda = lambda: None  # noqa: E731


class CallableThing:
    def __call__(self):
        pass


# Callable but not a function: pytest warns "cannot collect 'test_callable'
# because it is not a function." and yields no item.
test_callable = CallableThing()
