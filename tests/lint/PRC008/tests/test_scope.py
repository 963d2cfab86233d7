import pytest

pytestmark = [
    pytest.mark.qualitative,  # Error
    pytest.mark.nightly,  # OK
]


@pytest.mark.qualitative  # OK
def test_on_a_function():
    pass


@pytest.mark.nightly  # Error
def test_nightly_on_a_function():
    pass


class TestClass:
    pytestmark = pytest.mark.nightly  # OK

    @pytest.mark.parametrize("x", [pytest.param(1, marks=pytest.mark.nightly)])  # Error
    def test_param(self, x):
        pass
