import pytest

import lazy_cases
from lazy_cases import LARGE


@pytest.mark.parametrize("n", lazy_cases.SMALL)
def test_attribute(n):
    pass


@pytest.mark.parametrize("n", LARGE)
def test_from_import(n):
    pass


# A name the module binds is known as usual.
@pytest.mark.parametrize("word", lazy_cases.BOUND)
def test_bound(word):
    pass
