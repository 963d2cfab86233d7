import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.ollama]


def test_structured_output_person_returns_json():
    pass


def test_chat_two_turns_keeps_context():
    pass


@pytest.mark.qualitative
def test_greeting_instruct_contains_salutation():
    assert "hello" in "hello there"
