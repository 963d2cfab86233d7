import pytest

from tests.markers import requires_anthropic, requires_google, requires_openai

pytestmark = pytest.mark.interface


def test_openai_adapter_http_mocked_contract():
    pass


@pytest.mark.credentialed
@requires_openai
def test_openai_adapter_live_chat():
    pass


@pytest.mark.credentialed
@requires_anthropic
def test_anthropic_adapter_live_chat():
    pass


# The credentialed job's environment has no Google key: no job runs this.
@pytest.mark.credentialed
@requires_google
def test_google_adapter_live_chat():
    pass
