"""A pytest plugin for `bench/run/workers.sh`'s `-n 4` simulated report
(``-p worker_stats`` with this directory on ``PYTHONPATH``): each pytest
process (serial pytest, a pytest-xdist worker or controller, a proctor
worker) appends one JSON line to ``$WORKER_STATS`` as it ends: its own CPU
time (user + system), how many test modules it imported, and the time
their collection took (each ``Module``'s, which is its import)."""

import json
import os
import resource
import time

import pytest

_modules = 0
_import_s = 0.0


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector):
    global _modules, _import_s
    if not isinstance(collector, pytest.Module):
        return (yield)
    start = time.perf_counter()
    try:
        return (yield)
    finally:
        _import_s += time.perf_counter() - start
        _modules += 1


def pytest_unconfigure(config):
    path = os.environ.get("WORKER_STATS")
    if not path:
        return
    if hasattr(config, "workerinput"):
        role = "xdist worker"
    elif config.pluginmanager.has_plugin("dsession"):
        role = "xdist controller"
    else:
        role = "process"
    usage = resource.getrusage(resource.RUSAGE_SELF)
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps({
            "pid": os.getpid(),
            "role": role,
            "cpu_s": usage.ru_utime + usage.ru_stime,
            "modules": _modules,
            "import_s": _import_s,
        }) + "\n")
