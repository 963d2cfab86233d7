import pytest

pytestmark = pytest.mark.ollama


@pytest.mark.parametrize("model", ["llama3", "qwen2.5"])
def test_generate(model):
    pass
