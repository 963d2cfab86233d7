import pytest

from test.predicates import require_gpu

pytestmark = [pytest.mark.e2e, pytest.mark.huggingface]


@require_gpu(min_vram_gb=20)
def test_generate_granite_micro_returns_tokens():
    pass


# A 70B model in bf16: no runner of ours has 200 GB (the nightly card has 80).
@require_gpu(min_vram_gb=200)
def test_generate_70b_model_loads_on_one_gpu():
    pass
