# -*- coding: utf-8 -*-
"""Ids derived from literal values (pytest's IdMaker._idval).

- str/bytes: ASCII-escaped (non-ASCII -> \\x.., \\u...., \\U........;
  control characters -> \\n, \\t, \\x01 ...; a backslash -> two backslashes).
- int/float/bool/None/complex: str(value) (1e20 -> "1e+20", 1e-5 -> "1e-05").
- str/bytes longer than 100 characters: NOT the value: pytest 9.2's default
  parametrize_long_str_id_strategy "short" falls back to argname + index.
- Enum members: str(member) ("Color.RED"); but for IntEnum, Python >= 3.11
  makes str() the plain int ("2"), so this id depends on the Python version.
- classes, functions, modules (anything with a str __name__): __name__.
- anything else (tuples, lists, dicts, objects): argname + index.
"""

import enum

import pytest


class Color(enum.Enum):
    RED = 1
    GREEN = "g"


class Priority(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Widget:
    pass


def make_widget():
    return Widget()


@pytest.mark.parametrize(
    "n", [0, 1, -1, -42, 1180591620717411303424, 0x10, 0o17, 0b11, 1_000]
)
def test_ints(n):
    # Written in decimal whatever the literal: "16", "15", "3", "1000".
    pass


@pytest.mark.parametrize("f", [0.1, 1e20, 1e-5, -0.0, 1.0, -2.5, 1.5e300, 3.14159])
def test_floats(f):
    # Python's repr: "0.1", "1e+20", "1e-05", "-0.0", "1.0", "-2.5", "1.5e+300".
    pass


@pytest.mark.parametrize("c", [1j, -2j])
def test_complex(c):
    # str(): "1j", and "(-0-2j)" for -2j, which is -(2j), i.e. complex(-0.0, -2.0).
    pass


@pytest.mark.parametrize("b", [True, False])
def test_bools(b):
    pass


@pytest.mark.parametrize("v", [None])
def test_none(v):
    pass


@pytest.mark.parametrize(
    "s",
    [
        "plain",
        "with space",
        "é",
        "日本",
        "😀",
        "a\nb",
        "tab\there",
        "back\\slash",
        "\x01\x7f",
        "quote'\"",
        "a::b",
        "x/y",
        "br[ack]et",
        "implicit" "concatenation",
        "",
    ],
)
def test_strings(s):
    pass


@pytest.mark.parametrize("s", ["a" * 100, "b" * 101])
def test_long_strings(s):
    # 100 characters: the value is the id; 101: "s1".
    pass


@pytest.mark.parametrize("b", [b"abc", b"\xff", b"", b"caf\xc3\xa9"])
def test_bytes(b):
    pass


@pytest.mark.parametrize("e", [Color.RED, Color.GREEN, Priority.HIGH])
def test_enums(e):
    pass


@pytest.mark.parametrize(
    "obj",
    [
        {"k": 1},
        [1, 2],
        (1, 2),
        object(),
        Widget(),
        make_widget(),
        {1, 2},
        (),
    ],
)
def test_objects(obj):
    pass


@pytest.mark.parametrize("f", [Widget, make_widget, int, str, lambda: 0])
def test_named_objects(f):
    # __name__: "Widget", "make_widget", "int", "str", "<lambda>".
    pass


@pytest.mark.parametrize("a,b", [(1, None), ("x", [1]), (Color.RED, 2.5)])
def test_mixed(a, b):
    # Each value is rendered separately and joined with "-".
    pass
