import pytest

pytestmark = pytest.mark.integration  # OK


@pytest.mark.unit  # Error
def test_two_tiers():
    pass


def test_the_module_tier_only():  # OK
    pass


@pytest.mark.integration  # OK
def test_the_same_tier_twice():
    pass


@pytest.mark.core
@pytest.mark.interface  # Error
def test_two_areas():
    pass


@pytest.mark.e2e  # Error
class TestReportedOnce:
    def test_a(self):
        pass

    def test_b(self):
        pass
