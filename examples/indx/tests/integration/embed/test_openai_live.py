import os

import pytest


@pytest.mark.integration
@pytest.mark.live  # opt-in; excluded from the default offline run
@pytest.mark.skipif(not os.environ.get("OPENAI_API_KEY"), reason="OPENAI_API_KEY not set")
def test_openai_embedder_live():
    pass
