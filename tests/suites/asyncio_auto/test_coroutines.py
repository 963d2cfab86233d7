import unittest

import pytest


async def test_plain_coroutine():
    pass


def test_not_a_coroutine():
    pass


@pytest.mark.slow
async def test_marked_coroutine():
    pass


@pytest.mark.asyncio(loop_scope="function")
async def test_already_asyncio():
    pass


@pytest.mark.parametrize("n", [1, pytest.param(2, marks=pytest.mark.slow)])
async def test_parametrized(n):
    pass


class TestMethods:
    async def test_method(self):
        pass

    def test_sync_method(self):
        pass

    @staticmethod
    async def test_static():
        pass


@pytest.mark.asyncio
class TestMarkedClass:
    async def test_inherits_mark(self):
        pass


class TestUnittest(unittest.IsolatedAsyncioTestCase):
    async def test_unittest_coroutine(self):
        pass
