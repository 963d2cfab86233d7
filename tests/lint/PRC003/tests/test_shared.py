import pytest


@pytest.mark.unit  # Error
class TestShared:
    """Deleting the class's `unit` is safe for `test_plain` but not for
    `test_e2e`, which would be left with `e2e` only: no fix."""

    def test_plain(self):
        pass

    @pytest.mark.e2e
    def test_e2e(self):
        pass
