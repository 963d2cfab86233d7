import pytest


def test_rejection_sampling_zero_budget_returns_first():
    pass


# Over a minute: excluded by addopts, and so by both CI jobs (PR CI and the
# nightly script both run `pytest test/`, which keeps `-m "not slow"`).
@pytest.mark.slow
def test_best_of_n_large_budget_converges():
    pass
