import pytest

from test.predicates import require_api_key

pytestmark = [pytest.mark.e2e, pytest.mark.openai]


# Real OpenAI: needs a key that neither CI job exports.
@require_api_key("OPENAI_API_KEY")
def test_chat_completion_real_api_returns_message():
    pass


# Real OpenAI and qualitative: PR CI closes it by CICD=1, the nightly lacks
# the key.
@pytest.mark.qualitative
@require_api_key("OPENAI_API_KEY")
def test_instruct_haiku_real_api_has_three_lines():
    pass
