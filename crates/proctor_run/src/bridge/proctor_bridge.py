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
_pending = []


def _send(message, flush=True):
    """Queues a message; sends the queue when ``flush``. Reports wait for
    their test's end: one write per test keeps the bridge cheap, and a test
    that crashes its process is found as the first one never finished."""
    if _connection is None:
        return
    _pending.append(json.dumps(message, default=repr))
    if flush:
        data = "\n".join(_pending) + "\n"
        _pending.clear()
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
    _no_network.update(answer.get("no_network", []))
    deselected = [item for item in items if item.nodeid in deselect]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
    items[:] = kept


def pytest_runtest_logstart(nodeid, location):
    _send({"event": "start", "nodeid": nodeid}, flush=False)


def pytest_runtest_logreport(report):
    reason = None
    longrepr = None
    if report.skipped and isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
        reason = str(report.longrepr[2])
        if reason.startswith("Skipped: "):
            reason = reason[len("Skipped: "):]
    elif report.longrepr is not None:
        longrepr = report.longreprtext
    # Captured output is kept for failures only, as pytest shows it.
    sections = [[name, content] for name, content in report.sections] if report.failed else []
    _send({
        "event": "report",
        "nodeid": report.nodeid,
        "when": report.when,
        "outcome": report.outcome,
        "duration": report.duration,
        "longrepr": longrepr,
        "reason": reason,
        "wasxfail": getattr(report, "wasxfail", None),
        "sections": sections,
    }, flush=False)


def pytest_runtest_logfinish(nodeid, location):
    _send({"event": "finish", "nodeid": nodeid})


def pytest_sessionfinish(session, exitstatus):
    _send({"event": "session-finish", "exitstatus": int(exitstatus)})


_no_network = set()


def _is_loopback(address):
    host = address[0] if isinstance(address, tuple) and address else address
    if not isinstance(host, str):
        return True  # a Unix socket path or an unknown family: not the network
    return host in ("localhost", "::1") or host.startswith("127.") or host == "" or host.startswith("/")


class _NetworkRefused(OSError):
    pass


def _guard(real):
    def connect(self, address, *args, **kwargs):
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback(address):
            raise _NetworkRefused(
                "proctor: this test's tier may not use the network "
                "([run] no-network); it tried to connect to %r" % (address,)
            )
        return real(self, address, *args, **kwargs)
    return connect


_module = [None]


def _module_sync(item):
    """Before the first test of another module, tells proctor and waits for
    its answer: services' hooks between modules run then."""
    if not os.environ.get("PROCTOR_BRIDGE_MODULE_SYNC"):
        return
    module = item.nodeid.split("::", 1)[0]
    if _module[0] is not None and module != _module[0]:
        _send({"event": "module", "module": module})
        _receive()
    _module[0] = module


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _module_sync(item)
    if item.nodeid not in _no_network:
        yield
        return
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex
    socket.socket.connect = _guard(real_connect)
    socket.socket.connect_ex = _guard(real_connect_ex)
    try:
        yield
    finally:
        socket.socket.connect, socket.socket.connect_ex = real_connect, real_connect_ex
