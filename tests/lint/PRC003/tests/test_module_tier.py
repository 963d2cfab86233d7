import pytest

pytestmark = pytest.mark.e2e


@pytest.mark.unit  # Error
def test_default_beside_a_module_tier():
    """Flagged, but deleting the line would drop `unit` (the module's `e2e`
    keeps the default from being applied): no fix."""
