def test_storage_reads():
    assert "storage".isalpha()


def test_storage_writes():
    assert len("storage") > 2
