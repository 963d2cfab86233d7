import pytest

# Contract tests: every implementation of an abstraction behaves the same.
# No CI job selects `contract` (the audit command forgets it too).
pytestmark = pytest.mark.contract


def test_all_model_adapters_return_same_message_shape():
    pass


def test_all_agent_adapters_record_traces():
    pass
