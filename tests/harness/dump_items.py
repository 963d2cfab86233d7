"""pytest plugin used by proctor's differential tests.

Load it with ``-p dump_items`` (with ``tests/harness`` on ``PYTHONPATH``) and
set ``PROCTOR_DUMP`` to a file path.  It records the items at the end of
collection (after every ``pytest_collection_modifyitems`` hook, so the order
is pytest's final order) and writes this at session finish::

    {
      "version": 1,
      "rootdir": "...",
      "items": [
        {"nodeid": "...", "file": "...", "line": 12,   # 1-based, informational
         "markers": [{"name": ..., "args": [...], "kwargs": {...},
                      "node": "Function" | "Class" | "Module" | <type name>,
                      "node_type": <exact type name>}]}
      ],
      "errors": [{"nodeid": "...", "path": "...", "longrepr": "<first line>",
                  "summary": "<last line>"}],
      "warnings": [{"nodeid": "...", "category": "...", "message": "...",
                    "filename": ..., "lineno": ...}],
      "deselected": ["<nodeid>", ...]   # by -m/-k/--deselect/hooks
    }

Markers come from ``item.iter_markers_with_node()`` in that order (the item's
own markers, then its parent class(es), then the module, ...).

Values in marker args/kwargs are encoded as JSON when they are *literal*
values of an exact builtin type: None, bool, int, float (finite), str,
list, tuple (-> list), dict with str keys (recursively).  bytes become
``{"bytes": "<latin-1 decoded>"}``.  Anything else (including subclasses of
the builtins such as IntEnum members or ``pytest.param(...)`` ParameterSets,
sets, non-finite floats, objects) becomes ``{"expr": null}``.
"""

from __future__ import annotations

import json
import math
import os

import pytest

_ITEMS: list = []
_ERRORS: list = []
_WARNINGS: list = []
_DESELECTED: list = []


def encode_value(value):
    t = type(value)
    if value is None or t is bool or t is int or t is str:
        return value
    if t is float:
        return value if math.isfinite(value) else {"expr": None}
    if t is list or t is tuple:
        return [encode_value(v) for v in value]
    if t is dict:
        if all(type(k) is str for k in value):
            return {k: encode_value(v) for k, v in value.items()}
        return {"expr": None}
    if t is bytes:
        return {"bytes": value.decode("latin-1")}
    return {"expr": None}


def _node_kind(node) -> str:
    # Order matters: TestCaseFunction is a Function, UnitTestCase is a Class.
    if isinstance(node, pytest.Function):
        return "Function"
    if isinstance(node, pytest.Class):
        return "Class"
    if isinstance(node, pytest.Module):
        return "Module"
    return type(node).__name__


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def pytest_collectreport(report):
    if not report.failed:
        return
    text = str(report.longrepr) if report.longrepr is not None else ""
    lines = _lines(text)
    _ERRORS.append(
        {
            "nodeid": report.nodeid,
            "path": report.nodeid.split("::")[0],
            "longrepr": lines[0] if lines else "",
            "summary": lines[-1] if lines else "",
        }
    )


def pytest_deselected(items):
    _DESELECTED.extend(item.nodeid for item in items)


def pytest_warning_recorded(warning_message, when, nodeid, location):
    if when != "collect":
        return
    _WARNINGS.append(
        {
            "nodeid": nodeid,
            "category": warning_message.category.__name__,
            "message": str(warning_message.message),
            "filename": os.path.basename(str(warning_message.filename)),
            "lineno": warning_message.lineno,
        }
    )


def _item_record(item) -> dict:
    markers = []
    for node, mark in item.iter_markers_with_node():
        markers.append(
            {
                "name": mark.name,
                "args": [encode_value(a) for a in mark.args],
                "kwargs": {str(k): encode_value(v) for k, v in mark.kwargs.items()},
                "node": _node_kind(node),
                "node_type": type(node).__name__,
            }
        )
    file, lineno, _domain = item.location
    return {
        "nodeid": item.nodeid,
        "file": file,
        "line": None if lineno is None else lineno + 1,
        "markers": markers,
    }


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session):
    # Runs after every pytest_collection_modifyitems hook: this is pytest's
    # final item order.
    _ITEMS[:] = [_item_record(item) for item in session.items]


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session):
    # Written here rather than at collection_finish because collection
    # warnings are only reported once the whole collection phase is over.
    path = os.environ.get("PROCTOR_DUMP")
    if not path:
        return
    out = {
        "version": 1,
        "rootdir": str(session.config.rootpath),
        "items": list(_ITEMS),
        "errors": list(_ERRORS),
        "warnings": list(_WARNINGS),
        "deselected": list(_DESELECTED),
    }
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(out, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
