"""pytest 9's `subtests` fixture: pytest reports each subtest besides its
test (`SUBFAILED[msg] (i=1) ...`), counts failed ones as failures and,
when subtests are verbose, passed ones as `subtests passed`; a test with a
failed subtest fails itself (`contains 1 failed subtest`)."""

import pytest


def test_some_fail(subtests):
    for i in range(4):
        with subtests.test("even", i=i):
            assert i % 2 == 0


def test_all_pass(subtests):
    with subtests.test(msg="first"):
        pass
    with subtests.test():
        pass


def test_skipped_inside(subtests):
    with subtests.test("platform"):
        pytest.skip("not on this platform")
    with subtests.test("after"):
        pass


def test_fails_after_subtests(subtests):
    with subtests.test("fine"):
        pass
    assert 1 == 2


def test_no_subtests():
    pass
