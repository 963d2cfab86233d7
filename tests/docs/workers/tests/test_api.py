def test_api_reads():
    assert "api".isalpha()


def test_api_writes():
    assert len("api") > 2
