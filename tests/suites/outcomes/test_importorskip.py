import pytest

pytest.importorskip("a_module_that_is_not_installed")


def test_never_collected():
    pass
