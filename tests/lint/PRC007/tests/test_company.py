import pytest


@pytest.mark.ollama  # Error
def test_unit_with_backend():
    pass


@pytest.mark.e2e
@pytest.mark.ollama  # OK
def test_e2e_with_backend():
    pass


@pytest.mark.ollama  # Error
class TestReportedOnce:
    def test_a(self):
        pass

    def test_b(self):
        pass


@pytest.mark.qualitative
class TestAllowedByTheClass:
    @pytest.mark.ollama  # OK
    def test_a(self):
        pass
