import pytest

# OpenAI client pointed at Ollama's /v1: both markers, no require_api_key.
pytestmark = [pytest.mark.e2e, pytest.mark.openai, pytest.mark.ollama]


def test_openai_client_ollama_endpoint_returns_choice():
    pass
