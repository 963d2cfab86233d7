import pytest


@pytest.mark.xdist_group("disk")
def test_models_reads():
    assert "models".isalpha()


def test_models_writes():
    assert len("models") > 2
