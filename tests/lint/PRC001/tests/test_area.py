import pytest


def test_unmarked():  # Error
    pass


@pytest.mark.parametrize("x", [1, 2])  # Error
def test_parametrized_is_reported_once(x):
    pass


@pytest.mark.core  # OK
def test_marked():
    pass


@pytest.mark.smoke  # OK
def test_implied():
    pass


@pytest.mark.interface
class TestMarkedClass:
    def test_inherits_the_class_marker(self):  # OK
        pass


class TestUnmarked:
    def test_method(self):  # Error
        pass
