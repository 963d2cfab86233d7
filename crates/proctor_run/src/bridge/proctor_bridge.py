"""proctor's bridge to pytest, loaded with ``-p proctor_bridge``.

At collection it sends pytest's items (node id, markers) to
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
    _connection.sendall((json.dumps(message, default=repr) + "\n").encode("utf-8"))


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
    # `item.iter_markers()`, closest first, with the markers of modules and
    # classes converted once for all their items.
    parents = {}

    def convert(marks):
        return [{"name": m.name, "args": [_value(a) for a in m.args], "kwargs": {k: _value(v) for k, v in m.kwargs.items()}} for m in marks]

    def inherited(node):
        if node is None:
            return []
        found = parents.get(node.nodeid)
        if found is None:
            found = convert(node.own_markers) + inherited(node.parent)
            parents[node.nodeid] = found
        return found

    for item in items:
        markers = convert(item.own_markers) + inherited(item.parent)
        # Node id and markers are all the rules read (`item.location` would
        # cost a path computation per item).
        entry = {"nodeid": item.nodeid}
        if markers:
            entry["markers"] = markers
        collected.append(entry)
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
    no_network = set(answer.get("no_network", []))
    module_sync = bool(os.environ.get("PROCTOR_BRIDGE_MODULE_SYNC"))
    if (no_network or module_sync) and not config.pluginmanager.has_plugin("proctor_bridge_guard"):
        config.pluginmanager.register(_Guard(module_sync, no_network), "proctor_bridge_guard")
    deselected = [item for item in items if item.nodeid in deselect]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
    items[:] = kept


_reports = []


def pytest_runtest_logreport(report):
    """Keeps the test's reports until it ends: a passing phase as
    ``[when, outcome, duration]``, anything else in full."""
    if _connection is None:
        return
    if report.passed and not getattr(report, "wasxfail", None):
        _reports.append([report.when, "passed", report.duration])
        return
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
    _reports.append({
        "when": report.when,
        "outcome": report.outcome,
        "duration": report.duration,
        "longrepr": longrepr,
        "reason": reason,
        "wasxfail": getattr(report, "wasxfail", None),
        "sections": sections,
    })


def pytest_runtest_logfinish(nodeid, location):
    """One message per test, sent when it ends: a test that crashes its
    process is found as the first kept one that never ended."""
    if _connection is None:
        return
    _send({"event": "done", "nodeid": nodeid, "reports": list(_reports)})
    _reports.clear()


def pytest_sessionfinish(session, exitstatus):
    _send({"event": "session-finish", "exitstatus": int(exitstatus)})



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


class _Guard:
    """Per-test work registered only when needed: the module-change pause
    for hooks between modules, and the network contract."""

    def __init__(self, module_sync, no_network):
        self.module_sync = module_sync
        self.no_network = no_network
        self.module = None

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        if self.module_sync:
            # Before the first test of another module, tell proctor and
            # wait for its answer: services' hooks between modules run then.
            module = item.nodeid.split("::", 1)[0]
            if self.module is not None and module != self.module:
                _send({"event": "module", "module": module})
                _receive()
            self.module = module
        if item.nodeid not in self.no_network:
            yield
            return
        real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex
        socket.socket.connect = _guard(real_connect)
        socket.socket.connect_ex = _guard(real_connect_ex)
        try:
            yield
        finally:
            socket.socket.connect, socket.socket.connect_ex = real_connect, real_connect_ex
