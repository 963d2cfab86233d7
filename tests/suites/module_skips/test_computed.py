# The module's name is known only at run time: static collection keeps the
# test, pytest skips the module while importing it.
import pytest


def _name():
    return "another_module_" + "that_is_not_installed"


pytest.importorskip(_name())


def test_never_collected_either():
    pass
