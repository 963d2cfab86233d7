import random

import pytest


@pytest.mark.parametrize("x", [random.random()])
def test_random(x):
    pass


@pytest.mark.parametrize("n", [i * 2 for i in range(3)])
def test_doubled(n):
    pass
