import pytest


@pytest.mark.unit  # Error
def test_explicit_default():
    pass


def test_implicit_default():  # OK
    pass


@pytest.mark.integration  # OK
def test_other_tier():
    pass


@pytest.mark.fast  # OK
def test_default_that_may_be_written():
    pass


@pytest.mark.unit  # Error
class TestExplicit:
    def test_a(self):
        pass

    def test_b(self):
        pass
