# pytest skips this module while importing it; static collection knows it
# does when it knows the interpreter (no such module there).
import pytest

pytest.importorskip("a_module_that_is_not_installed")


def test_never_collected():
    pass
