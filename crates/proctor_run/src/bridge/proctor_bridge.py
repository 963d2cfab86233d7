"""proctor's bridge to pytest, loaded with ``-p proctor_bridge``.

When pytest's session starts it takes proctor's setup (modules not to
import, the opted-in examples and notebooks). At collection it sends
pytest's items (node id, markers) to proctor and applies proctor's
answer: deselect, skip with a reason, order. Then it sends each test's
reports when the test ends, one JSON object per line. All rules live in
proctor; this module only adapts. It does nothing unless
``PROCTOR_BRIDGE`` names proctor's address.

Every test pays for what this module does per test, so that path is
kept short: one message per test, formatted by hand for the common case
(every phase passed), and, when no other plugin implements
``pytest_runtest_protocol``, no hook of its own per test at all (see
``_Protocol``).

Every line it sends is valid JSON in UTF-8, whatever pytest holds:
values JSON has no literal for (NaN, infinities) are sent as
``{"repr": ...}``, and a string with a lone surrogate (a file name that
is not UTF-8, ``surrogateescape``) as text (see ``_wire``); the common
case is checked in C and pays nothing more.
"""

import ipaddress
import json
import operator
import os
import re
import reprlib
import socket
import sys
from json.encoder import encode_basestring_ascii as _quote

import pytest
from _pytest.reports import TestReport as _TestReport

_connection = None
_reader = None
# On a restart through directory arguments, the node ids (as sent) of the
# tests still to run.
_only = None

_reprlib = reprlib.Repr()
_reprlib.maxstring = _reprlib.maxother = 200


def _send(message):
    if _connection is None:
        return
    _connection.sendall(_json(message) + b"\n")


def _json(value):
    """`value` as JSON in UTF-8 bytes that proctor can always read. The
    first try is the common case; a NaN or an infinity (`allow_nan`), or a
    lone surrogate (which UTF-8 cannot encode), takes the second."""
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, default=repr).encode("utf-8")
    except ValueError:  # UnicodeEncodeError is one
        return json.dumps(_clean(value), ensure_ascii=False, allow_nan=False, default=_safe_repr).encode("utf-8")


def _clean(value):
    """`value` with what JSON or UTF-8 cannot hold replaced: a float that
    is not finite by ``{"repr": ...}`` (as marker arguments that are not
    literals), a string with lone surrogates by ``_wire``'s text."""
    if isinstance(value, str):
        return _wire(value)
    if isinstance(value, float):
        return value if value - value == 0 else {"repr": repr(value)}
    if isinstance(value, dict):
        return {_wire(k) if isinstance(k, str) else k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def _safe_repr(value):
    return _wire(repr(value))


def _wire(text):
    """`text` as proctor gets it: unchanged when UTF-8 can encode it (the
    common case, checked in C), else with each backslash doubled and each
    lone surrogate written as its escape (``\\udcff``), which ``_unwire``
    undoes (a node id proctor hands back)."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.replace("\\", "\\\\").encode("utf-8", "backslashreplace").decode("utf-8")


_ESCAPE = re.compile(r"\\\\|\\u(d[89a-f][0-9a-f]{2})")


def _unwire(text):
    """The string ``_wire`` made `text` from. A text without a surrogate's
    escape is as pytest had it (a literal ``\\udcff`` outside a doubled
    backslash in a real node id, which only an odd file name can hold,
    would be read as an escape)."""
    if "\\u" not in text:
        return text
    found = []

    def replace(match):
        if match.group(1) is None:
            return "\\"
        found.append(True)
        return chr(int(match.group(1), 16))

    restored = _ESCAPE.sub(replace, text)
    return restored if found else text


def _wire_ids(ids):
    """The node ids as proctor gets them: the list itself when every one
    is valid Unicode (checked at once, in C)."""
    joined = "".join(ids)
    if joined.isascii():
        return ids
    try:
        joined.encode("utf-8")
        return ids
    except UnicodeEncodeError:
        return [_wire(nodeid) for nodeid in ids]


def _receive():
    line = _reader.readline()
    if not line:
        raise pytest.UsageError("proctor closed the bridge before answering")
    return json.loads(line)


# What one marker argument may cost the bridge: an argument is sent as
# JSON when it holds at most this many container elements and characters
# in all, else as its repr cut to `_REPR` characters.
_BUDGET = 10_000
_REPR = 200


class _OverBudget(Exception):
    pass


def _argument(value):
    """A marker argument as JSON: literals as they are (a container of
    them within `_BUDGET`), anything else as a short repr; a 10 MB value
    costs what a short one does."""
    try:
        return _value(value, [_BUDGET])
    except _OverBudget:
        return {"repr": _short_repr(value)}


def _value(value, budget):
    """`value` as JSON, spending `budget` (a one-element list) in elements
    and characters; `_OverBudget` when it is spent."""
    if value is None or isinstance(value, (bool, float)):
        return value
    if isinstance(value, int):
        # JSON readers stop at 64 bits; Python refuses to write an int of
        # more than 4300 digits.
        return value if -(1 << 63) <= value < (1 << 64) else {"repr": _short_repr(value)}
    if isinstance(value, (str, list, tuple, dict)):
        budget[0] -= len(value)
        if budget[0] < 0:
            raise _OverBudget
        if isinstance(value, str):
            return value
        if isinstance(value, dict):
            return {str(k): _value(v, budget) for k, v in value.items()}
        return [_value(v, budget) for v in value]
    text = _short_repr(value)
    budget[0] -= len(text)
    if budget[0] < 0:
        raise _OverBudget
    return {"repr": text}


def _short_repr(value):
    """`repr(value)` cut to `_REPR` characters; bytes-like values and
    containers are cut before `repr` runs (reprlib), so that a 10 MB value
    costs what a short one does."""
    try:
        if isinstance(value, (bytes, bytearray)):
            text = repr(value[:_REPR]) + ("..." if len(value) > _REPR else "")
        else:
            text = _reprlib.repr(value)
    except Exception as error:  # a broken __repr__ is not proctor's to raise
        text = "<%s: repr failed: %s>" % (type(value).__name__, type(error).__name__)
    return text if len(text) <= _REPR else text[:_REPR] + "..."


def _marker(mark):
    """One marker as JSON. `parametrize`'s argument values are never
    walked or repr'd (each test's parameters are in its id): they are
    sent as their count."""
    args = mark.args
    if mark.name == "parametrize" and len(args) >= 2:
        try:
            count = len(args[1])
        except Exception:  # an iterator, already consumed by pytest
            count = None
        args = [_argument(args[0]), {"argvalues": count}] + [_argument(a) for a in args[2:]]
    else:
        args = [_argument(a) for a in args]
    return {"name": mark.name, "args": args, "kwargs": {k: _argument(v) for k, v in mark.kwargs.items()}}


def _connect():
    """Connects to proctor as this module is imported (`-p proctor_bridge`
    imports it before pytest loads entry-point plugins and conftests):
    proctor then knows pytest is starting, and bounds the suite's steps
    from the hello on."""
    global _connection, _reader
    address = os.environ.get("PROCTOR_BRIDGE")
    if not address or _connection is not None:
        return
    host, port = address.rsplit(":", 1)
    _connection = socket.create_connection((host, int(port)))
    _reader = _connection.makefile("r", encoding="utf-8")
    # A process a test forks must not hold proctor's stream open (proctor
    # reads it to its end once pytest exits) nor write into it.
    os.register_at_fork(after_in_child=_forget_connection)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    """Hello as pytest goes to load the conftests: what came before is
    start-up (Python, pytest, the installed plugins), what comes after is
    the suite's own code, which proctor's timeout bounds."""
    if _connection is not None:
        _send({"event": "hello", "token": os.environ.get("PROCTOR_BRIDGE_TOKEN", ""), "pid": os.getpid()})


def _forget_connection():
    """In a forked child: closes this process's copy of the socket."""
    global _connection, _reader
    if _connection is None:
        return
    try:
        _reader.close()
        _connection.close()
    except OSError:
        pass
    _connection = _reader = None


_rootdir = "."
_invocation_dir = "."  # where pytest was started, for paths as pytest prints them
_module_sync = False
_renamed = {}  # real node id -> as sent, for the few `_wire` changes
_kept = None  # the items the answer kept, in order, until collection ends
_stopped = None  # why pytest stopped early (`pytest.exit`, a KeyboardInterrupt)
_subtests = []  # the running test's subtests (pytest's `subtests` fixture), sent with it


def pytest_sessionstart(session):
    """proctor's setup, read as late as possible before collection: proctor
    may still be reading the suite while Python starts."""
    global _rootdir, _opt_in, _module_sync, _invocation_dir
    _rootdir = session.config.rootpath
    _invocation_dir = session.config.invocation_params.dir
    if _connection is None:
        return
    setup = _receive()
    config = session.config
    ignore = setup.get("ignore") or []
    if ignore:
        # As if given as `--ignore=PATH`: pytest's own check applies them.
        if config.option.ignore is None:
            config.option.ignore = []
        config.option.ignore.extend(ignore)
    _module_sync = bool(setup.get("module_sync"))
    only = setup.get("only")
    if only is not None:
        # The tests still to run after a crash, as if given as node ids on
        # the command line (which no character of theirs can break): the
        # command line itself is the first process's, so that the rootdir,
        # the ini file and the initial conftests are the same.
        root = str(config.rootpath)
        config.args = _restart_args(root, only)
    if not config.pluginmanager.has_plugin("proctor_bridge_subtests"):
        config.pluginmanager.register(_Subtests(config), "proctor_bridge_subtests")
    if setup.get("steal") and not config.pluginmanager.has_plugin("proctor_bridge_steal"):
        config.pluginmanager.register(_Steal(), "proctor_bridge_steal")
    if setup.get("progress") and not config.pluginmanager.has_plugin("proctor_bridge_progress"):
        config.pluginmanager.register(_Progress(), "proctor_bridge_progress")
    if setup.get("starts") and not config.pluginmanager.has_plugin("proctor_bridge_starts"):
        config.pluginmanager.register(_Starts(), "proctor_bridge_starts")
    manifest = setup.get("opt_in")
    if manifest:
        with open(manifest, encoding="utf-8") as f:
            _opt_in = json.load(f)
        if not config.pluginmanager.has_plugin("proctor_bridge_opt_in"):
            config.pluginmanager.register(_OptInCollection(), "proctor_bridge_opt_in")


def _restart_args(root, only):
    """The arguments that collect the tests still to run: their node ids,
    unless one cannot be an argument. pytest refuses a `[` in an
    argument's path ("path cannot contain [] parametrization"), and a node
    id with a ``\\u`` may be pytest's own escape of a parameter (``[\\udcff]``)
    that ``_unwire`` would read as a surrogate: then each test's file is
    collected (the closest directory above it without a `[` for a path
    with one), in the order of the tests, and the items are filtered to
    `only` by the node ids proctor sent."""
    global _only
    nodeids = [_unwire(nodeid) for nodeid in only]
    if not any("\\u" in sent or "[" in nodeid.split("::", 1)[0] for sent, nodeid in zip(only, nodeids)):
        return [os.path.join(root, nodeid) for nodeid in nodeids]
    _only = set(only)
    args = []
    for sent, nodeid in zip(only, nodeids):
        path = nodeid.split("::", 1)[0]
        if not os.path.exists(os.path.join(root, path)):
            path = sent.split("::", 1)[0]
        while "[" in path:
            path = os.path.dirname(path)
        path = os.path.join(root, path)
        if path not in args:
            args.append(path)
    return args


def _only_items(items, ids):
    """The items that are in `only`, each once: a
    directory argument collects the tests already run too."""
    kept, seen = [], set()
    for item, nodeid in zip(items, ids):
        if nodeid in _only and nodeid not in seen:
            seen.add(nodeid)
            kept.append(item)
    return kept


def _collected(items, ids):
    """The collection message: the node ids; each distinct marker once
    (``markers``: a ``Mark`` object is converted once, however many items
    hold it); each distinct list of markers once (``groups``: indices into
    ``markers``, ``item.iter_markers()`` order, closest first); and each
    item's list as an index into ``groups`` (``marks``). A parametrized
    function's items hold the same ``Mark`` objects: they share one group,
    and an item costs the message its id and one number."""
    markers = []
    marker_of = {}  # id(mark) -> index in `markers`
    groups = [[]]
    group_of_key = {}  # (parent group, own marker indices) -> group
    parents = {}
    held = []  # the marks indexed, alive while their ids are keys

    def index(mark):
        found = marker_of.get(id(mark))
        if found is None:
            markers.append(_marker(mark))
            held.append(mark)
            found = marker_of[id(mark)] = len(markers) - 1
        return found

    def extend(parent, own):
        key = (parent, tuple(map(index, own)))
        found = group_of_key.get(key)
        if found is None:
            groups.append(list(key[1]) + groups[parent])
            found = group_of_key[key] = len(groups) - 1
        return found

    def group_of(node):
        if node is None:
            return 0
        found = parents.get(id(node))
        if found is None:
            found = group_of(node.parent)
            if node.own_markers:
                found = extend(found, node.own_markers)
            parents[id(node)] = found
        return found

    marks = []
    for item in items:
        # Node id and markers are all the rules read (`item.location` would
        # cost a path computation per item).
        group = group_of(item.parent)
        if item.own_markers:
            group = extend(group, item.own_markers)
        marks.append(group)
    message = {"event": "collected", "ids": ids, "markers": markers, "groups": groups}
    if any(marks):
        message["marks"] = marks
    return message


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    if _connection is None:
        return
    global _renamed, _kept
    _mark_opted_in(items)
    # pytest computes `item.nodeid` from the node's path at each access:
    # read once per item.
    real_ids = [item.nodeid for item in items]
    ids = _wire_ids(real_ids)
    if _only is not None:
        items[:] = _only_items(items, ids)
        real_ids = [item.nodeid for item in items]
        ids = _wire_ids(real_ids)
    if ids is not real_ids:
        _renamed = {real: sent for real, sent in zip(real_ids, ids) if real is not sent}
    _send(_collected(items, ids))
    answer = _receive()
    if answer.get("markers"):
        _add_path_markers(items, ids, answer["markers"])
    skip = answer.get("skip") or {}
    deselect = set(answer.get("deselect") or ())
    order = answer.get("order")
    if skip or deselect or order:
        kept = []
        deselected = []
        for item, nodeid in zip(items, ids):
            reason = skip.get(nodeid)
            if reason is not None:
                item.add_marker(pytest.mark.skip(reason=reason))
            (deselected if nodeid in deselect else kept).append((item, nodeid))
        if order:
            position = {nodeid: i for i, nodeid in enumerate(order)}
            kept.sort(key=lambda pair: position.get(pair[1], len(position)))
        if deselected:
            config.hook.pytest_deselected(items=[item for item, _ in deselected])
        items[:] = [item for item, _ in kept]
    _kept = list(items)
    no_network = set(answer.get("no_network", []))
    if _renamed and no_network:
        real_of = {sent: real for real, sent in _renamed.items()}
        no_network = {real_of.get(nodeid, nodeid) for nodeid in no_network}
    plugins = config.pluginmanager
    if (no_network or _module_sync) and not plugins.has_plugin("proctor_bridge_guard"):
        plugins.register(_Guard(_module_sync, no_network), "proctor_bridge_guard")
    if plugins.has_plugin("proctor_bridge_protocol") or plugins.has_plugin("proctor_bridge_reports"):
        return
    others = [impl for impl in plugins.hook.pytest_runtest_protocol.get_hookimpls() if not (impl.hookwrapper or getattr(impl, "wrapper", False)) and impl.plugin_name != "runner"]
    if others:
        plugins.register(_Reports(), "proctor_bridge_reports")
    else:
        plugins.register(_Protocol(), "proctor_bridge_protocol")


def _add_path_markers(items, ids, specs):
    """The markers proctor's path rules give the items of some files, in
    order, each unless the item has it already: by name for a marker given
    by name alone, with equal arguments otherwise (a second
    `filterwarnings` filters more). Built as pytest builds a written mark,
    so `--strict-markers` does not refuse a marker proctor's config names."""
    from _pytest.mark.structures import Mark, MarkDecorator

    by_file = {}
    for spec in specs:
        kwargs = spec.get("kwargs")
        mark = Mark(spec["name"], tuple(spec.get("args") or ()), kwargs or {}, _ispytest=True)
        added = (MarkDecorator(mark, _ispytest=True), kwargs is None)
        for file in spec["files"]:
            by_file.setdefault(file, []).append(added)
    for item, nodeid in zip(items, ids):
        marks = by_file.get(nodeid.split("::", 1)[0])
        for decorator, by_name in marks or ():
            mark = decorator.mark
            if by_name:
                present = item.get_closest_marker(mark.name) is not None
            else:
                present = any(m.args == mark.args and m.kwargs == mark.kwargs for m in item.iter_markers(mark.name))
            if not present:
                item.add_marker(decorator)


def pytest_collection_finish(session):
    """The items as pytest will run them, when a hook after this plugin's
    (a conftest's `trylast`, another plugin) reordered or dropped some:
    proctor finds the test that was running when a process dies in this
    order."""
    global _kept
    kept, _kept = _kept, None
    if kept is None or _connection is None:
        return
    items = session.items
    if len(items) == len(kept) and all(map(operator.is_, items, kept)):
        return
    ids = []
    for item in items:
        nodeid = item.nodeid
        sent = _renamed.get(nodeid) or _wire(nodeid)
        if sent is not nodeid:
            _renamed[nodeid] = sent
        ids.append(sent)
    _send({"event": "order", "ids": ids})


def pytest_collectreport(report):
    """A collector that failed (a module that does not import): an error
    pytest counts, and so does proctor. One skipped as a whole while it
    was imported (a module-level `pytest.importorskip` or
    `pytest.skip(allow_module_level=True)`): one skip, with its reason."""
    if _connection is None:
        return
    if report.failed:
        _send({"event": "collect-error", "nodeid": _wire(report.nodeid), "longrepr": report.longreprtext})
    elif report.skipped:
        _send({"event": "collect-skip", "nodeid": _wire(report.nodeid), "reason": _skip_reason(report)})


class _Steal:
    """Work stealing (``proctor run -n N``): pytest's own run loop
    (``_pytest.main.pytest_runtestloop``), step for step, except that
    before the last test it holds it asks proctor for more files, and
    collects those into the same session (as pytest-xdist's worker waits
    for its next items before it runs the last one). The last test of a
    batch then knows its next item: the session's fixtures stay set up
    across batches, and a worker pays pytest's start-up once however many
    modules it takes. Registered only when proctor's setup asks for it."""

    def pytest_collectstart(self, collector):
        if _DIRECTORY is not None and isinstance(collector, _DIRECTORY):
            _directories[collector.path] = collector

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session):
        if session.testsfailed and not session.config.option.continue_on_collection_errors:
            raise session.Interrupted(_collection_errors(session.testsfailed))
        if session.config.option.collectonly:
            return True
        items = session.items
        at = 0
        more = True
        while True:
            if more and at + 1 >= len(items):
                more = _steal(session, items)
                continue
            if at >= len(items):
                return True
            item = items[at]
            nextitem = items[at + 1] if at + 1 < len(items) else None
            item.config.hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
            if session.shouldfail:
                raise session.Failed(session.shouldfail)
            if session.shouldstop:
                raise session.Interrupted(session.shouldstop)
            at += 1


_DIRECTORY = getattr(pytest, "Directory", None)  # pytest >= 8
_directories = {}  # path -> the Directory node this session collected there


def _collection_errors(count):
    return "%d error%s during collection" % (count, "s" if count != 1 else "")


def _steal(session, items):
    """Asks proctor for more files and appends their items (after
    proctor's answer to their collection) to `items`, which the run loop
    holds. False once proctor has none left."""
    _send({"event": "more"})
    files = _receive().get("files") or []
    if not files:
        return False
    global _only
    _only = None  # a restart's filter is for its own node ids only
    config = session.config
    # The files are collected now: `--ignore` no longer applies to them.
    taken = set(files)
    if config.option.ignore:
        config.option.ignore = [path for path in config.option.ignore if str(path) not in taken]
    failed = session.testsfailed
    new = _collect(session, files)
    session.items = new
    try:
        config.hook.pytest_collection_modifyitems(session=session, config=config, items=new)
    finally:
        config.hook.pytest_collection_finish(session=session)
        session.items = items
    items.extend(new)
    session.testscollected += len(new)
    # As pytest's own loop refuses to run after a collection error.
    if session.testsfailed > failed and not config.option.continue_on_collection_errors:
        raise session.Interrupted(_collection_errors(session.testsfailed))
    return True


def _collect(session, files):
    """The items of `files`, each collected under the Directory node this
    session has for its directory: pytest keys a conftest's fixtures (and
    package-scoped ones) to that node, which a new collection from the
    session would make again without them. A directory the session did
    not collect is collected now, below the closest one it did; without
    one (pytest < 8), the files are collected as pytest collects
    arguments (``Session.perform_collect``)."""
    from pathlib import Path

    items, rest = [], []
    for file in files:
        path = Path(file)
        parent = _directory(path.parent)
        if parent is None:
            rest.append(file)
            continue
        for collector in parent.ihook.pytest_collect_file(file_path=path, parent=parent):
            items.extend(session.genitems(collector))
    if rest:
        held, collected = session.items, session.testscollected
        try:
            items.extend(session.perform_collect(rest))
        finally:
            session.items, session.testscollected = held, collected
    return items


def _directory(path):
    """The session's Directory node for `path`, collected now (its
    conftests loaded, its fixtures parsed) below its closest collected
    parent if need be; None when there is none."""
    node = _directories.get(path)
    if node is not None or path.parent == path:
        return node
    parent = _directory(path.parent)
    if parent is None:
        return None
    from _pytest.runner import collect_one_node

    node = parent.ihook.pytest_collect_directory(path=path, parent=parent)
    if node is None:
        return None
    report = collect_one_node(node)  # registers it (pytest_collectstart)
    node.ihook.pytest_collectreport(report=report)
    return node if report.passed else None


class _Progress:
    """Each file and directory pytest starts to collect, so that proctor's
    `--timeout` bounds each import (registered only with a timeout)."""

    def pytest_collectstart(self, collector):
        if isinstance(collector, _COLLECTING):
            _send({"event": "collecting", "nodeid": collector.nodeid})


_COLLECTING = (pytest.File, getattr(pytest, "Directory", pytest.File))


class _Starts:
    """Each test as it starts, for the running test on proctor's progress
    line: registered only when proctor shows one (a terminal), so that a
    piped run pays nothing for it; then one short line per test."""

    def pytest_runtest_logstart(self, nodeid, location):
        if _connection is not None:
            sent = _renamed.get(nodeid, nodeid) if _renamed else nodeid
            _connection.sendall(b'{"event":"start","nodeid":%s}\n' % _quote(sent).encode("ascii"))


def pytest_keyboard_interrupt(excinfo):
    """`pytest.exit()` or a KeyboardInterrupt stops the session: why, for
    proctor to say (pytest prints the same line)."""
    global _stopped
    _stopped = excinfo.exconly()


_INF = float("inf")


def _send_test(nodeid, reports):
    """One message when a test ends, so that a test that crashes its
    process is found as the first kept one that never ended. `nodeid` is
    already quoted for JSON."""
    global _subtests
    if _subtests:
        subtests, _subtests = _subtests, []
        _connection.sendall(b'{"event":"done","nodeid":%s,"reports":%s,"subtests":%s}\n' % (nodeid.encode("ascii"), _json([_report(r) for r in reports]), _json(subtests)))
        return
    if len(reports) == 3:
        setup, call, teardown = reports
        if setup.outcome == "passed" and call.outcome == "passed" and teardown.outcome == "passed" and getattr(call, "wasxfail", None) is None:
            duration = setup.duration + call.duration + teardown.duration
            if 0 <= duration < _INF:  # no NaN or infinity, which JSON lacks
                # In integer nanoseconds: formatting a float costs Python
                # several thousand instructions, an integer a few hundred.
                _connection.sendall(('{"event":"passed","nodeid":%s,"nanos":%d}\n' % (nodeid, duration * 1e9)).encode("utf-8"))
                return
    _connection.sendall(b'{"event":"done","nodeid":%s,"reports":%s}\n' % (nodeid.encode("ascii"), _json([_report(r) for r in reports])))


def _report(report):
    """A report in full, for JSON."""
    reason = None
    longrepr = None
    location = None
    if report.skipped and isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
        reason = _skip_reason(report)
        location = _skip_location(report)
    elif report.longrepr is not None:
        longrepr = report.longreprtext
    duration = report.duration
    # Captured output is kept for failures only, as pytest shows it.
    sections = [[name, content] for name, content in report.sections] if report.failed else []
    return {
        "when": report.when,
        "outcome": report.outcome,
        "duration": duration if -_INF < duration < _INF else 0.0,
        "longrepr": longrepr,
        "reason": reason,
        "wasxfail": getattr(report, "wasxfail", None),
        "sections": sections,
        "location": location,
    }


def _skip_location(report):
    """Where ``-rs`` says a skip happened, folded as pytest's terminal
    reporter folds it (``_folded_skips``): a skip marker's skips per file,
    others per line; the path relative to the invocation directory."""
    path, lineno = report.longrepr[0], report.longrepr[1]
    try:
        from pathlib import Path

        from _pytest.pathlib import bestrelpath

        path = bestrelpath(Path(_invocation_dir), Path(path))
    except Exception:
        path = str(path)
    keywords = getattr(report, "keywords", {})
    if report.when == "setup" and "skip" in keywords and "pytestmark" not in keywords:
        lineno = None
    return [path, lineno if isinstance(lineno, int) else None]


def _skip_reason(report):
    """A skip's reason as pytest's `-rs` prints it (without `Skipped: `)."""
    longrepr = report.longrepr
    reason = str(longrepr[2]) if isinstance(longrepr, tuple) and len(longrepr) == 3 else report.longreprtext
    return reason[len("Skipped: "):] if reason.startswith("Skipped: ") else reason


def _is_subtest(report):
    """Whether a report is a subtest's (`SubtestReport`, pytest 9's
    `subtests` fixture), which reaches only the report hook."""
    return report.__class__.__name__ == "SubtestReport" and hasattr(report, "context")


class _Subtests:
    """Each subtest's report, converted when pytest logs it and sent with
    its test's reports, with the stats category pytest's terminal counts it
    in (`failed`, `subtests passed`, or none while subtests are quiet)."""

    def __init__(self, config):
        self.config = config

    def pytest_runtest_logreport(self, report):
        if report.__class__ is _TestReport or not _is_subtest(report):
            return
        # Counted at the user's verbosity: proctor starts pytest with one
        # `-q` of its own (session.rs), which would make subtests verbose
        # (pytest counts passed subtests only at a verbosity other than 0).
        option = self.config.option
        verbose = option.verbose
        option.verbose = verbose + 1
        try:
            status = self.config.hook.pytest_report_teststatus(report=report, config=self.config)
        finally:
            option.verbose = verbose
        entry = _report(report)
        entry["description"] = report._sub_test_description()
        entry["category"] = status[0] if status else report.outcome
        _subtests.append(entry)


class _Protocol:
    """pytest's own ``pytest_runtest_protocol`` (``_pytest.runner``), step
    for step, which also sends the test's reports: registered only when no
    other plugin implements the hook, it costs the test no hook call of its
    own. Wrappers (timeouts, warnings, the guard) still wrap it."""

    def __init__(self):
        from _pytest.runner import runtestprotocol

        self.runtestprotocol = runtestprotocol

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item, nextitem):
        ihook = item.ihook
        nodeid = item.nodeid
        location = item.location
        ihook.pytest_runtest_logstart(nodeid=nodeid, location=location)
        reports = self.runtestprotocol(item, nextitem=nextitem)
        ihook.pytest_runtest_logfinish(nodeid=nodeid, location=location)
        _send_test(_quote(_renamed.get(nodeid, nodeid) if _renamed else nodeid), reports)
        return True


class _Reports:
    """The same messages from pytest's report hooks, when another plugin
    (pytest-rerunfailures, flaky, a conftest) runs tests its own way."""

    def __init__(self):
        self.reports = []

    def pytest_runtest_logreport(self, report):
        if not _is_subtest(report):
            self.reports.append(report)

    def pytest_runtest_logfinish(self, nodeid):
        reports, self.reports = self.reports, []
        _send_test(_quote(_renamed.get(nodeid, nodeid) if _renamed else nodeid), reports)


_session = None  # the session, once it finished


def pytest_sessionfinish(session, exitstatus):
    global _session
    _session = session
    message = {"event": "session-finish", "exitstatus": int(exitstatus)}
    # Why the session ended before its last test, if it did: pytest.exit,
    # a KeyboardInterrupt, `-x` / `--maxfail`, a plugin's `shouldstop`.
    stopped = _stopped or session.shouldfail or session.shouldstop
    if stopped:
        message["stopped"] = str(stopped)
    _send(message)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    """pytest's last hook: the interpreter only shuts down after it, and
    proctor goes on while it does. The status is what `pytest.main`
    returns (a `sessionfinish` hook may have changed it)."""
    if _session is not None:
        _send({"event": "unconfigured", "exitstatus": int(_session.exitstatus)})


def _is_loopback(address):
    """Whether an AF_INET/AF_INET6 address stays on this machine: the name
    ``localhost``, or an IP literal in 127.0.0.0/8 or ``::1`` (an
    IPv4-mapped one included). Any other name may resolve anywhere
    (``127.attacker.example`` is a name, not an address)."""
    host = address[0] if isinstance(address, tuple) and address else address
    if not isinstance(host, str):
        return True  # a Unix socket path or an unknown family: not the network
    if host == "" or host.lower().rstrip(".") == "localhost":
        return True
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return ip.is_loopback or (mapped is not None and mapped.is_loopback)


class _NetworkRefused(OSError):
    pass


def _refuse(self, address):
    if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback(address):
        raise _NetworkRefused(
            "proctor: this test's tier may not use the network "
            "([run] no-network); it tried to reach %r" % (address,)
        )


def _guard(real):
    def connect(self, address, *args, **kwargs):
        _refuse(self, address)
        return real(self, address, *args, **kwargs)
    return connect


def _guard_sendto(real):
    # sendto(data, address) or sendto(data, flags, address): UDP (DNS
    # queries by hand) reaches out without connect().
    def sendto(self, data, *args):
        if args:
            _refuse(self, args[-1])
        return real(self, data, *args)
    return sendto


def _guard_sendmsg(real):
    def sendmsg(self, buffers, *args, **kwargs):
        address = args[2] if len(args) > 2 else kwargs.get("address")
        if address is not None:
            _refuse(self, address)
        return real(self, buffers, *args, **kwargs)
    return sendmsg


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
        guards = [("connect", _guard), ("connect_ex", _guard), ("sendto", _guard_sendto), ("sendmsg", _guard_sendmsg)]
        # sendmsg does not exist everywhere (Windows).
        real = {name: getattr(socket.socket, name) for name, _ in guards if hasattr(socket.socket, name)}
        for name, guard in guards:
            if name in real:
                setattr(socket.socket, name, guard(real[name]))
        try:
            yield
        finally:
            for name, method in real.items():
                setattr(socket.socket, name, method)


# Examples and notebooks that opt in (``[examples]``, ``[notebooks]``).
# proctor read their opt-ins statically and lists them, with their
# markers, in the manifest its setup names; a file that another
# plugin or a conftest already collects (nbmake, a project's own example
# collector) is left to it and only gets the markers.

_opt_in = {"files": {}}


def _opt_in_entry(path):
    files = _opt_in["files"]
    return files.get(str(path)) if files else None


def _add_opt_in_markers(item, entry):
    for name in entry.get("markers", []):
        if item.get_closest_marker(name) is None:
            item.add_marker(getattr(pytest.mark, name))
    if entry.get("skip"):
        item.add_marker(pytest.mark.skip(reason=entry["skip"]))


def _mark_opted_in(items):
    if not _opt_in["files"]:
        return
    for item in items:
        if isinstance(item, (_ExampleItem, _NotebookItem)):  # marked when made
            continue
        entry = _opt_in_entry(getattr(item, "path", ""))
        if entry is not None:
            _add_opt_in_markers(item, entry)


class _OptInCollection:
    """Collects the opted-in files; registered only when proctor hands a
    manifest, so a suite without examples pays nothing per file."""

    def pytest_pycollect_makemodule(self, module_path, parent):
        """An opted-in example named on the command line (or matching
        ``python_files``) is run as a script, never imported as a module."""
        entry = _opt_in_entry(module_path)
        if entry is not None and entry["kind"] == "example":
            return _OptInFile.from_parent(parent, path=module_path)
        return None

    @pytest.hookimpl(hookwrapper=True)
    def pytest_collect_file(self, file_path, parent):
        outcome = yield
        entry = _opt_in_entry(file_path)
        if entry is None:
            return
        if outcome.get_result():
            return
        outcome.force_result([_OptInFile.from_parent(parent, path=file_path)])


class _OptInFailed(Exception):
    """An example or notebook that did not run clean; its text is the report."""


class _OptInFile(pytest.File):
    def collect(self):
        entry = _opt_in_entry(self.path)
        if entry["kind"] == "example":
            # The id the Mellea conftest gives: `docs/examples/hello.py::hello.py`.
            item = _ExampleItem.from_parent(self, name=self.path.name)
        else:
            # nbmake's id: `docs/notebooks/intro.ipynb::intro.ipynb`.
            item = _NotebookItem.from_parent(self, name=self.path.name)
        _add_opt_in_markers(item, entry)
        return [item]


def _run_captured(command, cwd, timeout):
    """Runs `command` with the rootdir importable. Its stdout goes to this
    test's captured output; its stderr is returned for the report (without
    colour codes and the kernel's transport warning). Returns (status,
    stderr, timed_out)."""
    env = dict(os.environ)
    root = str(_rootdir)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("PROCTOR_BRIDGE", None)
    import subprocess  # only examples and notebooks need it

    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace")
    timed_out = False
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        process.kill()
        out, err = process.communicate()
    sys.stdout.write(out)
    err = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", err)
    err = "".join(line for line in err.splitlines(True) if "Kernel is running over TCP without encryption" not in line)
    return process.returncode, err, timed_out


class _OptInItem(pytest.Item):
    """An example or a notebook: a failure is reported as its own text."""

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, _OptInFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo)


class _ExampleItem(_OptInItem):
    """An example script, run as a subprocess with the rootdir importable;
    it passes when it exits with status 0."""

    def runtest(self):
        timeout = _opt_in.get("example_timeout")
        status, err, timed_out = _run_captured([sys.executable, str(self.path)], str(self.config.invocation_params.dir), timeout)
        if timed_out:
            raise _OptInFailed("example ran over its %g s timeout ([examples] timeout) and was killed" % timeout)
        if status == 0:
            sys.stderr.write(err)
            return
        # `pytest.skip()` in the script: pytest names its exception
        # `Skipped` in tracebacks.
        last = err.strip().splitlines()[-1] if err.strip() else ""
        if last.startswith("Skipped: "):
            pytest.skip(last[len("Skipped: "):])
        how = "was killed by signal %d" % -status if status < 0 else "exited with status %d" % status
        raise _OptInFailed("example %s\n%s" % (how, err.rstrip()))

    def reportinfo(self):
        return self.path, 0, "example: %s" % self.name


_NOTEBOOK_RUNNER = r"""
import os, sys
import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

path, cell_timeout = sys.argv[1], float(sys.argv[2])
notebook = nbformat.read(path, as_version=4)
kernel = notebook.metadata.get("kernelspec", {}).get("name") or "python3"
# A cell over its timeout stops the notebook at once: the kernel is shut
# down immediately rather than asked to finish the cell.
client = NotebookClient(notebook, timeout=cell_timeout, kernel_name=kernel, shutdown_kernel="immediate",
                        resources={"metadata": {"path": os.path.dirname(os.path.abspath(path))}})
try:
    client.execute()
except CellTimeoutError as error:
    sys.stderr.write("a cell ran over its %g s timeout ([notebooks] cell-timeout)\n%s\n" % (cell_timeout, error))
    sys.exit(3)
except (CellExecutionError, DeadKernelError) as error:
    sys.stderr.write("%s\n" % error)
    sys.exit(1)
"""


class _NotebookItem(_OptInItem):
    """A notebook, executed cell by cell with nbclient in a subprocess,
    with a per-cell and a whole-notebook timeout; it passes when every
    cell runs clean (cells tagged ``skip-execution`` are skipped)."""

    def runtest(self):
        import importlib.util

        if importlib.util.find_spec("nbclient") is None:
            pytest.skip("nbclient is not installed in this interpreter (pip install nbclient ipykernel)")
        cell_timeout = _opt_in.get("cell_timeout", 300)
        timeout = _opt_in.get("notebook_timeout", 900)
        command = [sys.executable, "-c", _NOTEBOOK_RUNNER, str(self.path), str(cell_timeout)]
        status, err, timed_out = _run_captured(command, str(self.path.parent), timeout)
        if timed_out:
            raise _OptInFailed("notebook ran over its %g s timeout ([notebooks] timeout) and was killed" % timeout)
        if status != 0:
            raise _OptInFailed("notebook failed (status %d)\n%s" % (status, err.strip()))

    def reportinfo(self):
        return self.path, 0, "notebook: %s" % self.path.name


# Last, once everything above is defined.
_connect()
