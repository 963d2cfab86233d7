"""A plugin that runs each test itself, as pytest-rerunfailures and flaky
do (a non-wrapper ``pytest_runtest_protocol``). proctor's bridge must then
leave the hook to it and read the reports instead. Each test it ran is
appended to the file ``OWN_PROTOCOL_LOG`` names, to show that it did,
after ``proctor`` when it ran under proctor's bridge, else ``pytest``."""

import os

import pytest
from _pytest.runner import runtestprotocol


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    runtestprotocol(item, nextitem=nextitem)
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    log = os.environ.get("OWN_PROTOCOL_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            runner = "proctor" if os.environ.get("PROCTOR_BRIDGE") else "pytest"
            f.write("%s %s\n" % (runner, item.nodeid))
    return True
