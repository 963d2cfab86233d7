"""Skip helpers for optional extras and services."""

import importlib.util
import os
import socket

import pytest


def require_extra(name):
    """Skip unless the backend extra providing `name` is installed."""
    return pytest.mark.skipif(importlib.util.find_spec(name) is None, reason=f"package {name} not installed (pip install indx[{name}])")


def _reachable(env, default):
    host, _, port = os.environ.get(env, default).split("://")[-1].rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=0.2):
            return True
    except (OSError, ValueError):
        return False


def requires_qdrant():
    return pytest.mark.skipif(not _reachable("QDRANT_URL", "127.0.0.1:6333"), reason="service qdrant not reachable")


def requires_ollama():
    return pytest.mark.skipif(not _reachable("OLLAMA_HOST", "127.0.0.1:11434"), reason="service ollama not reachable")


def requires_postgres():
    return pytest.mark.skipif(not _reachable("PGVECTOR_ADDRESS", "127.0.0.1:5432"), reason="service postgres not reachable")
