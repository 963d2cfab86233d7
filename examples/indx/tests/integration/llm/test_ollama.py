import pytest

from tests.helpers import requires_ollama


@pytest.mark.integration
@requires_ollama()
def test_ollama_llm_summarizes_chunk():
    pass
