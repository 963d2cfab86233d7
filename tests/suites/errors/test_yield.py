"""Error: a generator (yield) test function.

pytest 9.2 (_pytest/python.py, pytest_pycollect_makeitem) fails collection
with "'yield' keyword is allowed in fixtures, but not in tests
(test_yields)".  The failure is raised while collecting the module, so the
module's other tests are lost too.
"""

import pytest


def test_fine_but_lost():
    pass


def test_yields():
    yield 1


@pytest.fixture
def a_fixture_may_yield():
    # A yield in a fixture is fine.
    yield 1
