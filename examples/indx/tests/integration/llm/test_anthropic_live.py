import os

import pytest


# Hits the real Anthropic API: only with --live, and only with a key that
# the live job does not have.
@pytest.mark.integration
@pytest.mark.live
@pytest.mark.skipif(not os.environ.get("ANTHROPIC_API_KEY"), reason="ANTHROPIC_API_KEY not set")
def test_anthropic_llm_live_completes():
    pass
