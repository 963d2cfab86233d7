import pytest


@pytest.mark.integration
def test_token_metrics_otel_reader_records_usage():
    pass


@pytest.mark.integration
def test_session_mock_backend_calls_generate():
    pass
