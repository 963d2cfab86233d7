import pytest


@pytest.mark.qualitative  # OK
def test_companion_from_a_path_rule():
    pass
