import sys

import pytest


def test_mssql_adapter_introspects_schema():
    pass


# Integrated Windows authentication: only on Windows, and the test bed runs
# on Ubuntu runners.
@pytest.mark.skipif(sys.platform != "win32", reason="Windows authentication needs Windows")
def test_mssql_windows_auth_connects():
    pass
