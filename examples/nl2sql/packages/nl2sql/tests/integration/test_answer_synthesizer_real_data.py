import pytest

# llm: the synthesizer asks the chat model to phrase the answer.
pytestmark = pytest.mark.llm


def test_synthesizer_cites_rows():
    pass
