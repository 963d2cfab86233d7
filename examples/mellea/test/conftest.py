"""Mellea's global conftest, reduced: tier auto-apply, qualitative gate,
Ollama TCP detection at collection time."""

import os
import socket

import pytest

TIERS = {"unit", "integration", "e2e", "llm"}


def _ollama_up():
    host = os.environ.get("OLLAMA_HOST", "127.0.0.1:11434")
    host = host.split("://")[-1]
    name, _, port = host.rpartition(":")
    try:
        with socket.create_connection((name or "127.0.0.1", int(port or 11434)), timeout=0.2):
            return True
    except (OSError, ValueError):
        return False


@pytest.fixture(scope="session")
def gh_run():
    return 1 if os.environ.get("CICD") == "1" else 0


def pytest_collection_modifyitems(config, items):
    ollama = _ollama_up()
    for item in items:
        names = {m.name for m in item.iter_markers()}
        if not names & TIERS:
            item.add_marker(pytest.mark.unit)
        if "qualitative" in names and os.environ.get("CICD") == "1":
            item.add_marker(pytest.mark.skip(reason="qualitative tests are skipped when CICD=1"))
        if "ollama" in names and not ollama:
            item.add_marker(pytest.mark.skip(reason="Ollama not reachable"))
