"""Conditions on the target interpreter spelled without `sys.`/`os.`: each
stays as written in `collect --json` (a `{"expr": ...}`), so that `plan`
decides it per CI job; a condition on nothing the interpreter decides is
folded to its value."""

from os import name as os_name
from sys import platform, version_info
import sys as system

import pytest

ON_WINDOWS = platform == "win32"


@pytest.mark.skipif(platform == "win32", reason="not on Windows")
def test_imported_platform():
    pass


@pytest.mark.skipif(ON_WINDOWS, reason="a module-level flag")
def test_module_flag():
    pass


@pytest.mark.xfail(version_info < (3, 9), reason="old interpreter")
def test_imported_version():
    pass


@pytest.mark.skipif(condition=system.platform == "darwin", reason="an alias of sys")
def test_aliased_sys():
    pass


@pytest.mark.skipif(os_name == "nt", reason="Windows")
def test_imported_os_name():
    pass


@pytest.mark.skipif(1 + 1 == 3, reason="never")
def test_plain_condition():
    pass
