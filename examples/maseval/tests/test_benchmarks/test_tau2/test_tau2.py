import pytest

pytestmark = pytest.mark.benchmark


def test_tau2_import_without_extras_is_graceful():
    pass


@pytest.mark.live
def test_tau2_environment_executes_tool(ensure_tau2_data):
    pass


@pytest.mark.live
@pytest.mark.slow
def test_tau2_data_integrity_minimum_records(ensure_tau2_data):
    pass
