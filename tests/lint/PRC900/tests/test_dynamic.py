import os

import pytest


def backends():
    # Known only where the tests run.
    return os.environ.get("BACKENDS", "ollama").split(",")


@pytest.mark.parametrize("backend", backends())  # Error
def test_dynamic(backend):
    pass


def static_backends():
    return ["ollama", "openai"]


@pytest.mark.parametrize("backend", static_backends())  # OK
def test_static(backend):
    pass
