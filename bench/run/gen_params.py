#!/usr/bin/env python3
"""A suite for the scale benchmark: TESTS parametrized tests whose
parameter values are large and shared, with marks that take arguments.

    python3 bench/run/gen_params.py OUT --tests 100000 [--functions 10] [--value-kb 2]

One module, ``tests/test_params.py``. Its values are a few big objects
(a list of VALUE_KB x 1024 ints, a dict of lists, a nested tuple of
them, all literals that proctor's static collection evaluates) repeated in one list, so that every test's parameter is large and
the suite's memory is mostly the values themselves (shared, as a real
suite's fixtures tables are): whatever the bridge did per item with a
whole value list, or with one value, would show. None of the values is a
``str`` or ``bytes``, whose text pytest would make the test's id: the
ids are ``v0`` ... ``vN``, as with any large object.

Marks with arguments on the module (``pytestmark``), on each function
and on some parameters (``pytest.param(..., marks=...)``, one shared
ParameterSet repeated), all registered in ``pyproject.toml``.
"""

import argparse
from pathlib import Path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--tests", type=int, default=100_000)
    ap.add_argument("--functions", type=int, default=10)
    ap.add_argument("--value-kb", type=int, default=2, help="the shared list holds VALUE_KB x 1024 ints")
    args = ap.parse_args()
    per_function = args.tests // args.functions
    # Each function's list: a repeated block of 4 values, one of them a
    # pytest.param with marks; the block count makes the list's length.
    blocks, extra = divmod(per_function, 4)
    out = args.out
    (out / "tests").mkdir(parents=True, exist_ok=True)
    (out / "pyproject.toml").write_text(
        "[tool.pytest.ini_options]\n"
        "testpaths = ['tests']\n"
        "addopts = '--strict-markers'\n"
        "markers = [\n"
        "    'area(name, owner): the code area and its owner',\n"
        "    'timeout(seconds): a time limit',\n"
        "    'requires(resource, **limits): a resource the test needs',\n"
        "    'heavy(level): a heavy parameter',\n"
        "    'slow: takes long',\n"
        "]\n"
    )
    lines = [
        "import pytest",
        "",
        "pytestmark = [pytest.mark.area('storage', owner='team-data')]",
        "",
        f"BLOB = [0] * {args.value_kb * 1024}",
        "TABLE = {'row%d' % i: list(range(25)) for i in range(40)}",
        "NESTED = (BLOB, TABLE, [TABLE, TABLE])",
        "HEAVY = pytest.param(NESTED, marks=[pytest.mark.slow, pytest.mark.heavy(3)])",
        f"VALUES = [BLOB, TABLE, NESTED, HEAVY] * {blocks} + [TABLE] * {extra}",
        "",
    ]
    for f in range(args.functions):
        lines += [
            f"@pytest.mark.timeout({30 + f})",
            f"@pytest.mark.requires('disk', gb={f + 1}, kind='ssd')",
            "@pytest.mark.parametrize('v', VALUES)",
            f"def test_values_{f}(v):",
            "    assert v",
            "",
        ]
    (out / "tests" / "test_params.py").write_text("\n".join(lines))


if __name__ == "__main__":
    main()
