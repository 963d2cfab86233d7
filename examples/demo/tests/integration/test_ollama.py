import pytest

pytestmark = [pytest.mark.integration, pytest.mark.ollama]


@pytest.mark.parametrize("model", ["llama3", "qwen2.5"])
async def test_generate(model):
    assert model
