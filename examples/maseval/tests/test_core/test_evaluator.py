import pytest

pytestmark = pytest.mark.core


def test_evaluator_empty_traces_scores_zero():
    pass


def test_task_queue_preserves_order():
    pass


@pytest.mark.parametrize("n", [1, 3])
def test_callback_fires_per_step(n):
    assert n
