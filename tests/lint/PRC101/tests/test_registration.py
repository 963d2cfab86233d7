import pytest

pytestmark = pytest.mark.intergration  # Error


@pytest.mark.slow  # OK: registered in pytest.ini
@pytest.mark.unit  # OK: an axis marker
@pytest.mark.gpu  # OK: declared in [markers.gpu]
@pytest.mark.skip  # OK: pytest's own
def test_registered():
    pass


@pytest.mark.parametrize("x", [1, 2])  # OK: pytest's own
@pytest.mark.smoek  # Error
def test_typo(x):
    pass


class TestGroup:
    pytestmark = [pytest.mark.flakey]  # Error

    def test_a(self):
        pass

    @pytest.mark.xfail  # OK
    def test_b(self):
        pass


@pytest.mark.nightly  # Error  proctor: ignore[PRC001]
def test_unknown_once_per_place():
    pass


@pytest.mark.nightly  # proctor: ignore[PRC101]
def test_suppressed():
    pass


@pytest.mark.needs_db  # OK: registered by conftest.py
def test_registered_in_conftest():
    pass


@pytest.mark.slwo  # Error: a typo of the registered `slow`
def test_typo_of_a_registered_marker():
    pass
