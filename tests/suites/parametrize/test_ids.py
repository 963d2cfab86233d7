"""Explicit ids: ids=[...] and pytest.param(..., id=...)."""

import pytest


@pytest.mark.parametrize("x", [1, 2, 3], ids=["one", "two", "three"])
def test_ids_list(x):
    pass


@pytest.mark.parametrize("x", [1, 2, 3], ids=["one", None, "three"])
def test_ids_with_none(x):
    # None in ids: that set gets its auto-generated id ("2").
    pass


@pytest.mark.parametrize("x", [1, 2, 3, 4], ids=[10, 2.5, True, "é"])
def test_non_string_ids(x):
    # Non-string ids go through the value->id rules: "10", "2.5", "True",
    # and strings are ASCII-escaped like values ("\\xe9").
    pass


@pytest.mark.parametrize("a,b", [(1, 2), (3, 4)], ids=("first", "second"))
def test_ids_tuple(a, b):
    pass


@pytest.mark.parametrize(
    "x",
    [
        pytest.param(1, id="explicit"),
        pytest.param(2),
        pytest.param(3, id="日本"),
        4,
    ],
)
def test_param_ids(x):
    # pytest.param(id=...) wins; its id is ASCII-escaped too.
    pass


@pytest.mark.parametrize(
    "x",
    [pytest.param(1, id="from-param"), 2],
    ids=["from-ids", "also-from-ids"],
)
def test_param_id_beats_ids_list(x):
    pass


@pytest.mark.parametrize(
    "a,b",
    [pytest.param(1, 2, id="pair"), pytest.param("x", None)],
)
def test_param_multiple_values(a, b):
    pass


@pytest.mark.parametrize(
    "x",
    [
        pytest.param(1, marks=pytest.mark.slow),
        pytest.param(2, marks=[pytest.mark.slow, pytest.mark.fast]),
        pytest.param(3, marks=(pytest.mark.tag("t"),), id="tagged"),
        4,
    ],
)
def test_param_marks(x):
    # Param marks are appended to the item's own markers, after every
    # decorator on the function (see the markers suite).
    pass


@pytest.mark.parametrize("x", [1, 2], ids=["", "ok"])
def test_empty_string_id(x):
    # An explicit empty id gives "test_empty_string_id[]".
    pass


@pytest.mark.parametrize(
    "x", [1, 2], ids=[pytest.HIDDEN_PARAM, "shown"]
)
def test_hidden_param(x):
    # pytest.HIDDEN_PARAM (pytest >= 8.4) removes the set's id: the first
    # item has no [...] at all.
    pass


@pytest.mark.parametrize("x", [pytest.param(1, id=pytest.HIDDEN_PARAM), 2])
@pytest.mark.parametrize("y", ["a", "b"])
def test_hidden_param_stacked(x, y):
    # A hidden id is dropped from the "-"-joined list of the stacked ids.
    pass
