import pytest

pytestmark = pytest.mark.llm


def test_pipeline():
    pass
