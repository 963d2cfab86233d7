import pytest

pytestmark = pytest.mark.qualitative


@pytest.mark.llm
def test_answer():
    pass


@pytest.mark.unit
@pytest.mark.requires_gpu  # proctor: ignore[PRC005]
def test_parse():
    pass


@pytest.mark.parametrize("x", make())
def test_dynamic(x):
    pass
