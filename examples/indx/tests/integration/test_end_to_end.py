import pytest


@pytest.mark.integration
def test_index_inspect_query_cloud_default_stack():
    pass
