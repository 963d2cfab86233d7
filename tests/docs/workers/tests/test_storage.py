import pytest


@pytest.mark.xdist_group("disk")
def test_storage_reads():
    assert "storage".isalpha()


@pytest.mark.xdist_group("disk")
def test_storage_writes():
    assert len("storage") > 2
