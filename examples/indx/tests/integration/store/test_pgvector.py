import pytest

from tests.helpers import requires_postgres


# integration.yml starts Qdrant and Ollama but no Postgres: no job runs this.
@pytest.mark.integration
@requires_postgres()
def test_pgvector_upsert_and_search():
    pass
