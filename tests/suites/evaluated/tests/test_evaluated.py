import enum
import itertools
import operator
import sys

import pytest

import shapes
from helpers import CASES, PAIRS, generated, make_cases
from shapes import SIDES, VALID


class Color(str, enum.Enum):
    RED = "red"
    DARK_BLUE = "dark blue"


class Plain(enum.Enum):
    ONE = 1


@pytest.mark.parametrize("x", [i / 2 for i in range(3)])
def test_halves(x):
    pass


@pytest.mark.parametrize("n", list(range(4)))
def test_list_range(n):
    pass


@pytest.mark.parametrize("seconds", [60 * 60 + 0.5, 2 ** 10, 7 // 2, -7 % 3, 1e3 / 4])
def test_arithmetic(seconds):
    pass


@pytest.mark.parametrize("kind", sorted(VALID - shapes.DEPRECATED))
def test_sorted_set_difference(kind):
    pass


@pytest.mark.parametrize("fn", (shapes.area, shapes._area_python, shapes.fast_area, operator.eq, len))
def test_functions_by_name(fn):
    pass


@pytest.mark.parametrize("kind, sides", [pytest.param(k, v, id=f"{k}:{v}") for k, v in SIDES.items()])
def test_params_from_dict(kind, sides):
    pass


@pytest.mark.parametrize("a, b", PAIRS)
def test_product_from_helper(a, b):
    pass


@pytest.mark.parametrize("n, square", CASES)
def test_module_code(n, square):
    pass


@pytest.mark.parametrize("label", make_cases("case", count=3))
def test_helper_function(label):
    pass


@pytest.mark.parametrize("word", list(generated()))
def test_generator_function(word):
    pass


@pytest.mark.parametrize("color", [Color.RED, Color.DARK_BLUE, Plain.ONE])
def test_enum_members(color):
    pass


@pytest.mark.parametrize("v", [1, 2, 3], ids=lambda v: f"v{v * 10}")
def test_ids_lambda(v):
    pass


def _name(value):
    return "big" if value > 1 else None


@pytest.mark.parametrize("v", [1, 2], ids=_name)
def test_ids_function_with_fallback(v):
    pass


@pytest.mark.parametrize("text", ["{} {!r}".format(a, b) for a, b in zip("xy", ["p", "q"])])
def test_str_format_and_zip(text):
    pass


@pytest.mark.parametrize("pair", list(itertools.combinations("abc", 2)))
def test_combinations(pair):
    pass


@pytest.mark.parametrize("word", [w.upper() for w in "alpha beta".split()] + ["%s-%03d" % ("n", 7)])
def test_string_methods(word):
    pass


@pytest.mark.parametrize("n", [x for x in range(10) if x % 3 == 0], ids=[str(x) for x in "abcd"])
def test_ids_list_comprehension(n):
    pass


@pytest.mark.parametrize(
    "n",
    [pytest.param(i, marks=pytest.mark.xfail(reason="odd")) if i % 2 else i for i in range(3)],
)
def test_param_marks_in_comprehension(n):
    pass


@pytest.mark.parametrize("obj", [object(), shapes.area("x")])
def test_objects(obj):
    pass


class TestInClass:
    VALUES = [v + 1 for v in range(2)]

    @pytest.mark.parametrize("v", VALUES)
    def test_class_attribute(self, v):
        pass


# Functions re-exported through `from ... import *` chains: ids are their
# `__name__`.
@pytest.mark.parametrize("make", [shapes.pentagon, shapes.octagon])
def test_star_exported(make):
    assert make() > 4
