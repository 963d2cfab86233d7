"""An empty argvalues list still yields one item, skipped at run time.

pytest makes a single parameter set of NOTSET values (id "NOTSET" whatever
the argnames) and adds a "skip" mark with reason
"got empty parameter set for (<argnames joined by ', '>)" after the
parametrize mark (empty_parameter_set_mark defaults to "skip").
"""

import pytest


@pytest.mark.parametrize("x", [])
def test_empty_single(x):
    pass


@pytest.mark.parametrize("a,b", [])
def test_empty_pair(a, b):
    pass


@pytest.mark.parametrize("x", [1, 2])
@pytest.mark.parametrize("y", [])
def test_empty_stacked(x, y):
    pass
