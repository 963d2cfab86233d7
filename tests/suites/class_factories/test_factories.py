import collections
import dataclasses
import functools
import re
import types

import pytest

from factories import named_class, plain_instance


class Sortable:
    def __eq__(self, other):
        return True

    def __lt__(self, other):
        return False


Point = collections.namedtuple("Point", "x y")
Made = dataclasses.make_dataclass(cls_name="Made", fields=["a"])
New = types.new_class("New")
CLASSES = [Point, Made, New, named_class("FromSource"), functools.total_ordering(Sortable)]
NAMES = [cls.__name__ for cls in CLASSES]


@pytest.mark.parametrize("cls", CLASSES)
def test_class_ids(cls):
    assert isinstance(cls, type)


@pytest.mark.parametrize("cls", CLASSES, ids=[f"{name}-named" for name in NAMES])
def test_ids_from_names(cls):
    pass


@pytest.mark.parametrize("cls", [named_class("C"), named_class("C", object)])
def test_same_name(cls):
    assert cls.__name__ == "C"


@pytest.mark.parametrize("value", [plain_instance(1), plain_instance(2)])
def test_instances(value):
    pass


@pytest.mark.parametrize("func", [None, getattr(re, "fullmatch", None), getattr(re, "match")])
def test_getattr_of_a_module(func):
    pass
