"""pytest plugin for the run differential tests: writes each test's outcome,
as pytest's own ``pytest_report_teststatus`` classifies its reports, to the
JSON file named by ``PROCTOR_DUMP``.

Collectors that fail (a module that does not import) are errors under
their own node id. Modules skipped as a whole at collection are listed apart: pytest has no
test items for them, where proctor reports each of their tests skipped.

A test's outcome is the most severe category among its reports: error,
failed, xpassed, xfailed, skipped, passed (a test whose call passes and
whose teardown fails is an error, as proctor counts it).
"""

import json
import os

_SEVERITY = ["passed", "skipped", "xfailed", "xpassed", "failed", "error"]
_outcomes = {}
_skipped_modules = []


def pytest_collectreport(report):
    """A module skipped as a whole (``pytest.importorskip`` at module level),
    or one that fails to collect: an error pytest counts (``N errors``),
    under the collector's node id, as proctor reports it."""
    if report.skipped:
        _skipped_modules.append(report.nodeid)
    elif report.failed:
        _outcomes[report.nodeid] = "error"


def pytest_runtest_logreport(report):
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
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"outcomes": _outcomes, "skipped_modules": _skipped_modules, "exitstatus": int(exitstatus)}, f)
