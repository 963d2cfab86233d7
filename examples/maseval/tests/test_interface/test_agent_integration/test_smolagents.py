import pytest

pytest.importorskip("smolagents")

pytestmark = [pytest.mark.interface, pytest.mark.smolagents]


def test_smolagents_adapter_wraps_agent():
    pass
