"""pytest plugin for the run differential tests: writes each test's outcome,
as pytest's own ``pytest_report_teststatus`` classifies its reports, to the
JSON file named by ``PROCTOR_DUMP``.

Collectors that fail (a module that does not import) are errors under
their own node id; modules skipped as a whole at collection (a
module-level ``pytest.importorskip``, ``pytest.skip(allow_module_level=True)``)
are one skip under their own node id, with their reason in
``module_skip_reasons``, as pytest counts them.

A test's outcome is the most severe category among its setup and call
reports: error, failed, xpassed, xfailed, skipped, passed. A failed
teardown is an error pytest counts besides it (``1 passed, 1 error``):
written as ``+error`` after the outcome (``passed+error``). Subtests'
reports (pytest 9's ``subtests`` fixture) are not the test's: the
differential compares them through the terminal summary.
"""

import json
import os

_SEVERITY = ["passed", "skipped", "xfailed", "xpassed", "failed", "error"]
_outcomes = {}
_module_skip_reasons = {}
_teardown_errors = set()


def pytest_collectreport(report):
    """A module skipped as a whole (``pytest.importorskip`` at module level):
    one skip pytest counts (``1 skipped``); one that fails to collect: an
    error (``1 error``); each under the collector's node id."""
    if report.skipped:
        _outcomes[report.nodeid] = "skipped"
        reason = str(report.longrepr[2]) if isinstance(report.longrepr, tuple) else report.longreprtext
        _module_skip_reasons[report.nodeid] = reason[len("Skipped: "):] if reason.startswith("Skipped: ") else reason
    elif report.failed:
        _outcomes[report.nodeid] = "error"


def pytest_runtest_logreport(report):
    if report.__class__.__name__ == "SubtestReport":
        return
    if report.when == "teardown" and report.failed:
        _teardown_errors.add(report.nodeid)
        return
    config = _config
    category, _, _ = config.hook.pytest_report_teststatus(report=report, config=config)
    if category in ("", None):
        return
    if category not in _SEVERITY:
        category = "error" if report.failed else category
    previous = _outcomes.get(report.nodeid)
    if previous is None or _SEVERITY.index(category) > _SEVERITY.index(previous):
        _outcomes[report.nodeid] = category


_config = None


def pytest_configure(config):
    global _config
    _config = config


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("PROCTOR_DUMP")
    if path:
        outcomes = {nodeid: outcome + ("+error" if nodeid in _teardown_errors else "") for nodeid, outcome in _outcomes.items()}
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"outcomes": outcomes, "module_skip_reasons": _module_skip_reasons, "exitstatus": int(exitstatus)}, f)
