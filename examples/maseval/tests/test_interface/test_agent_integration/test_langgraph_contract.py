import pytest

pytestmark = [pytest.mark.interface, pytest.mark.langgraph]


def test_langgraph_adapter_http_mocked_roundtrip():
    pass
