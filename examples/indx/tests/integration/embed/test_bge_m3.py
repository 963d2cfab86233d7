import pytest

from tests.helpers import require_extra


@pytest.mark.integration
@require_extra("FlagEmbedding")
def test_bge_m3_embeds_1024_dims():
    pass
