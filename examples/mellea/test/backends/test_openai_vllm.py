import pytest

from test.predicates import require_gpu

# `vllm` implies `openai` in proctor's taxonomy; the seed writes both.
pytestmark = [pytest.mark.e2e, pytest.mark.openai, pytest.mark.vllm, require_gpu(min_vram_gb=8)]


def test_vllm_server_completion_returns_text():
    pass
