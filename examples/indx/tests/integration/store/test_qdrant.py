import pytest

from tests.helpers import requires_qdrant


@pytest.mark.integration
@requires_qdrant()
def test_qdrant_upsert_and_search():
    pass
