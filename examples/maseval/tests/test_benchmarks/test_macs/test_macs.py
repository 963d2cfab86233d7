import pytest

pytestmark = pytest.mark.benchmark


def test_macs_invalid_domain_rejected():
    pass


@pytest.mark.smoke
def test_macs_full_pipeline_dummy_model():
    pass
