"""Duplicate ids and pytest 9's suffix rule.

When the ids of one parametrize call are not unique, every duplicated id
gets a counter suffix, per id, in order: "x" -> "x0", "x1", ...  If the id
ends with a digit an underscore goes in between ("x1" -> "x1_0").  If a
candidate collides with an id that already exists in the list, the counter
is bumped until it does not ("x" twice next to a real "x1" -> "x0", "x2").
An empty id has no last digit: "" twice -> "0", "1".  Unique ids are left
alone.  (Stacked parametrize calls are made unique separately, per call.)
"""

import pytest


@pytest.mark.parametrize("x", ["a", "a", "b"])
def test_auto_duplicates(x):
    pass


@pytest.mark.parametrize("x", [1, 1, "1"])
def test_int_and_str_collide(x):
    # All three render as "1": "1_0", "1_1", "1_2".
    pass


@pytest.mark.parametrize("x", ["x", "x", "x1"])
def test_suffix_collides_with_real_id(x):
    # "x0", then "x1" is taken by the third set, so "x2"; "x1" stays.
    pass


@pytest.mark.parametrize("x", [1, 2, 3], ids=["same", "same", "same"])
def test_explicit_duplicates(x):
    pass


@pytest.mark.parametrize("x", ["v1", "v1", "v1_0"])
def test_underscore_suffix_collision(x):
    # "v1" ends with a digit: candidates "v1_0" (taken) -> "v1_1", "v1_2".
    pass


@pytest.mark.parametrize("x", ["", ""])
def test_empty_duplicates(x):
    pass


@pytest.mark.parametrize("x", [[1], [2], 3], ids=["x1", None, None])
def test_argname_index_collision(x):
    # Index-based ids are "x1" (set 1) and "3": "x1" twice -> "x1_0", "x1_1".
    pass


@pytest.mark.parametrize("x", [None, "None"])
def test_none_vs_string(x):
    pass
