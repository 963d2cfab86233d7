"""proctor's bridge to pytest, loaded with ``-p proctor_bridge``.

At collection it sends pytest's items (node id, location, markers) to
proctor and applies proctor's answer: deselect, skip with a reason, order.
Then it streams each test's reports back, one JSON object per line. All
rules live in proctor; this module only adapts. It does nothing unless
``PROCTOR_BRIDGE`` names proctor's address.
"""

import json
import os
import socket

import pytest

_connection = None
_reader = None


def _send(message):
    if _connection is None:
        return
    data = json.dumps(message, default=repr) + "\n"
    _connection.sendall(data.encode("utf-8"))


def _receive():
    line = _reader.readline()
    if not line:
        raise pytest.UsageError("proctor closed the bridge before answering")
    return json.loads(line)


def _value(value):
    """A marker argument as JSON: literals as they are, others as repr."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _value(v) for k, v in value.items()}
    return {"repr": repr(value)}


def pytest_configure(config):
    global _connection, _reader
    address = os.environ.get("PROCTOR_BRIDGE")
    if not address or _connection is not None:
        return
    host, port = address.rsplit(":", 1)
    _connection = socket.create_connection((host, int(port)))
    _reader = _connection.makefile("r", encoding="utf-8")
    _send({"event": "hello", "token": os.environ.get("PROCTOR_BRIDGE_TOKEN", ""), "pid": os.getpid()})


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    if _connection is None:
        return
    collected = []
    for item in items:
        markers = [
            {"name": m.name, "args": [_value(a) for a in m.args], "kwargs": {k: _value(v) for k, v in m.kwargs.items()}}
            for m in item.iter_markers()
        ]
        path, line, _ = item.location
        collected.append({"nodeid": item.nodeid, "file": path, "line": (line or 0) + 1, "markers": markers})
    _send({"event": "collected", "items": collected})
    answer = _receive()
    by_id = {item.nodeid: item for item in items}
    for nodeid, reason in answer.get("skip", {}).items():
        item = by_id.get(nodeid)
        if item is not None:
            item.add_marker(pytest.mark.skip(reason=reason))
    deselect = set(answer.get("deselect", []))
    kept = [item for item in items if item.nodeid not in deselect]
    order = answer.get("order")
    if order:
        position = {nodeid: i for i, nodeid in enumerate(order)}
        kept.sort(key=lambda item: position.get(item.nodeid, len(position)))
    deselected = [item for item in items if item.nodeid in deselect]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
    items[:] = kept


def pytest_runtest_logstart(nodeid, location):
    _send({"event": "start", "nodeid": nodeid})


def pytest_runtest_logreport(report):
    reason = None
    longrepr = None
    if report.skipped and isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
        reason = str(report.longrepr[2])
        if reason.startswith("Skipped: "):
            reason = reason[len("Skipped: "):]
    elif report.longrepr is not None:
        longrepr = report.longreprtext
    _send({
        "event": "report",
        "nodeid": report.nodeid,
        "when": report.when,
        "outcome": report.outcome,
        "duration": report.duration,
        "longrepr": longrepr,
        "reason": reason,
        "wasxfail": getattr(report, "wasxfail", None),
        "sections": [[name, content] for name, content in report.sections],
    })


def pytest_runtest_logfinish(nodeid, location):
    _send({"event": "finish", "nodeid": nodeid})


def pytest_sessionfinish(session, exitstatus):
    _send({"event": "session-finish", "exitstatus": int(exitstatus)})
