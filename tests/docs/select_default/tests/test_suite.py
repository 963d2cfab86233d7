import pytest


@pytest.mark.core
def test_parse():
    pass


@pytest.mark.core
@pytest.mark.slow
def test_parse_big():
    pass


@pytest.mark.live
@pytest.mark.slow
def test_live_roundtrip():
    pass


@pytest.mark.live
@pytest.mark.slow
@pytest.mark.credentialed
def test_upload():
    pass


@pytest.mark.smoke
def test_deployment():
    pass


@pytest.mark.property
def test_roundtrip_property():
    pass
