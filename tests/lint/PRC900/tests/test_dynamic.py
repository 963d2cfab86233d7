import pytest


def backends():
    return ["ollama", "openai"]


@pytest.mark.parametrize("backend", backends())  # Error
def test_dynamic(backend):
    pass


@pytest.mark.parametrize("backend", ["ollama", "openai"])  # OK
def test_static(backend):
    pass
