import pytest


@pytest.mark.openai
def test_chat():
    pass
