"""pytest plugin for `corpus.py run`: what bare pytest made of each test.

Load it with ``-p record_outcomes`` (``tests/corpus`` on ``PYTHONPATH``)
and set ``PROCTOR_DUMP`` to a file path. At session finish it writes::

    {
      "tests": {"<nodeid>": {"outcome": "passed" | "failed" | "skipped" |
                                        "xfailed" | "xpassed" | "error",
                             "reason": "<skip or xfail reason>" | null}},
      "collect_errors": ["<collector nodeid>", ...],
      "skipped_collectors": {"<collector nodeid>": "<reason>"},
      "subtests": {"<nodeid>": {"passed": N, "failed": N, "skipped": N, ...}},
      "exitstatus": N
    }

A test's outcome is pytest's own classification of its reports
(``pytest_report_teststatus``), the most severe one when it has several:
error, failed, xpassed, xfailed, skipped, passed (a test whose call passes
and whose teardown fails is an error, as pytest counts it). The reason of
a skip is the text pytest's ``-rs`` summary prints (``Skipped: `` removed),
that of an xfail or xpass the text of ``-rx``. A subtest's report
(pytest's built-in ``subtests`` fixture) is counted apart under its test:
it is not the test's own outcome.
"""

import json
import os

_SEVERITY = ["passed", "skipped", "xfailed", "xpassed", "failed", "error"]
_tests = {}
_collect_errors = []
_skipped_collectors = {}
_subtests = {}
_config = None


def pytest_configure(config):
    global _config
    _config = config


def _skip_reason(report):
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        reason = str(longrepr[2])
    else:
        reason = str(longrepr)
    return reason[len("Skipped: "):] if reason.startswith("Skipped: ") else reason


def pytest_collectreport(report):
    if report.failed:
        _collect_errors.append(report.nodeid)
    elif report.skipped:
        _skipped_collectors[report.nodeid] = _skip_reason(report)


def pytest_runtest_logreport(report):
    if type(report).__name__ == "SubtestReport":
        counts = _subtests.setdefault(report.nodeid, {})
        counts[report.outcome] = counts.get(report.outcome, 0) + 1
        return
    category, _, _ = _config.hook.pytest_report_teststatus(report=report, config=_config)
    if not category:
        return
    if category not in _SEVERITY:
        category = "error" if report.failed else "passed" if report.passed else "skipped"
    if category == "failed" and report.when != "call":
        category = "error"
    reason = None
    if category == "skipped":
        reason = _skip_reason(report)
    elif category in ("xfailed", "xpassed"):
        reason = getattr(report, "wasxfail", None)
    previous = _tests.get(report.nodeid)
    if previous is None or _SEVERITY.index(category) > _SEVERITY.index(previous["outcome"]):
        _tests[report.nodeid] = {"outcome": category, "reason": reason}


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("PROCTOR_DUMP")
    if not path:
        return
    with open(path, "w", encoding="utf-8") as f:
        json.dump(
            {
                "tests": _tests,
                "collect_errors": _collect_errors,
                "skipped_collectors": _skipped_collectors,
                "subtests": _subtests,
                "exitstatus": int(exitstatus),
            },
            f,
        )
