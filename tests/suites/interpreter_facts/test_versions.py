import os
import platform
import sys

import pytest

pytestmark = pytest.mark.skipif(sys.version_info < (3, 0), reason="python 2")

if sys.version_info >= (3, 8):

    def test_modern():
        pass

else:

    def test_ancient():
        pass


if sys.version_info[:2] < (3, 0):

    def test_never():
        pass


if sys.platform.startswith("linux") or sys.platform == "darwin":

    def test_posix_platform():
        pass


if platform.system() in ("Linux", "Darwin") and os.name == "posix":

    class TestUnix:
        def test_system(self):
            pass


if os.name == "nt":

    def test_windows():
        pass


if sys.version_info.major == 3:
    if sys.version_info.minor >= 0:

        def test_nested():
            pass


@pytest.mark.skipif(sys.version_info >= (3, 8), reason="new enough")
def test_skipped_when_new():
    pass


@pytest.mark.parametrize(
    "value", [sys.version_info.major, sys.version_info[0] * 10, sys.version_info > (3,)]
)
def test_major(value):
    pass


@pytest.mark.parametrize("plat", [sys.platform, os.name])
def test_platform_ids(plat):
    pass
