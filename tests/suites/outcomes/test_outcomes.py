import os
import sys

import pytest


def test_passes():
    assert 1 + 1 == 2


def test_fails():
    assert [1, 2] == [1, 3]


@pytest.fixture
def broken_setup():
    raise RuntimeError("setup breaks")


def test_setup_error(broken_setup):
    pass


@pytest.fixture
def broken_teardown():
    yield
    raise RuntimeError("teardown breaks")


def test_teardown_error(broken_teardown):
    pass


def test_fails_and_its_teardown_too(broken_teardown):
    assert 1 == 2


@pytest.mark.skip(reason="not today")
def test_skipped():
    pass


@pytest.mark.skipif(sys.version_info < (3, 99), reason="needs the future")
def test_skipif():
    pass


def test_skip_inside():
    pytest.skip("decided at run time")


@pytest.mark.xfail(reason="known bug")
def test_xfail():
    assert False


@pytest.mark.xfail(reason="fixed already")
def test_xpass():
    pass


@pytest.mark.xfail(strict=True, reason="must fail")
def test_xpass_strict():
    pass


@pytest.mark.slow
def test_slow():
    pass


@pytest.mark.network
@pytest.mark.parametrize("n", [1, 2, 3])
def test_param(n):
    assert n != 2


class TestGroup:
    def test_in_class(self):
        pass

    @pytest.mark.slow
    def test_slow_in_class(self):
        assert False
