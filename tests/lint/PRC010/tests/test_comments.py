import pytest

# OK: justified by the comment right above it.

# generate_sql() calls the hosted model: needs OPENAI_API_KEY.
pytestmark = pytest.mark.llm


# Error: no comment next to it.

@pytest.mark.llm
def test_unjustified():
    pass


@pytest.mark.llm  # OK: summarize() calls the model.
def test_justified_at_the_end_of_the_line():
    pass


# Error: a suppression for another code is no justification.

@pytest.mark.llm  # proctor: ignore[PRC004]
def test_directive_only():
    pass
