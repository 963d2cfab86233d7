"""Error: parametrize names an argument the function does not take.

pytest fails collection of the module: "In test_mismatch: function uses no
argument 'y'".
"""

import pytest


def test_fine_but_lost():
    pass


@pytest.mark.parametrize("y", [1, 2])
def test_mismatch(x):
    pass
