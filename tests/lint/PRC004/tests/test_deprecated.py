import pytest

pytestmark = pytest.mark.llm  # Error


@pytest.mark.old_smoke  # Error
def test_deprecated_without_replacement():
    pass


@pytest.mark.e2e  # OK
def test_the_target():
    pass


@pytest.mark.gpu_alias  # OK
def test_an_alias_that_is_not_deprecated():
    pass


@pytest.mark.llm  # OK  proctor: ignore[PRC004]
def test_suppressed():
    pass


@pytest.mark.llm  # OK  proctor: ignore
def test_suppressed_bare():
    pass


@pytest.mark.llm  # Error  proctor: ignore[PRC005]
def test_suppressed_for_another_code():
    pass


@pytest.mark.parametrize("x", [1, pytest.param(2, marks=pytest.mark.llm)])  # Error
def test_param(x):
    pass
