"""Every way to spell argnames; one item per parameter set."""

import pytest


@pytest.mark.parametrize("a,b", [(1, 2), (3, 4)])
def test_comma_string(a, b):
    pass


@pytest.mark.parametrize("a, b", [(1, 2)])
def test_comma_space_string(a, b):
    pass


@pytest.mark.parametrize(" a ,b ", [(5, 6)])
def test_padded_string(a, b):
    # Names are stripped.
    pass


@pytest.mark.parametrize(["a", "b"], [(1, 2), [3, 4]])
def test_list_of_names(a, b):
    # Parameter sets may be tuples or lists.
    pass


@pytest.mark.parametrize(("a", "b"), [(1, 2)])
def test_tuple_of_names(a, b):
    pass


@pytest.mark.parametrize("x", [1])
def test_single_value(x):
    pass


@pytest.mark.parametrize("x", [(1, 2), (3, 4)])
def test_single_name_tuple_values(x):
    # One name: each value is passed whole (a tuple here), so ids fall back
    # to argname + index.
    pass


@pytest.mark.parametrize(["x"], [(1,), (2,)])
def test_single_name_in_list(x):
    # A *list* with one name: each parameter set is a 1-tuple to unpack.
    pass


@pytest.mark.parametrize("x", (7, 8))
def test_tuple_of_values(x):
    pass


@pytest.mark.parametrize(argnames="x", argvalues=[9])
def test_keyword_arguments(x):
    pass


@pytest.mark.parametrize("a,b,c", [(1, "x", None)])
def test_three_names(a, b, c):
    pass
