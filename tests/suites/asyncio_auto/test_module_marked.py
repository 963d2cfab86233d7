import pytest

pytestmark = pytest.mark.asyncio


async def test_module_mark():
    pass
