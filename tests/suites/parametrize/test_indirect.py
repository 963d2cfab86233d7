"""indirect parametrization: the values go to fixtures, ids are unchanged."""

import pytest


@pytest.fixture
def server(request):
    return request.param


@pytest.fixture
def client(request):
    return getattr(request, "param", None)


@pytest.mark.parametrize("server", ["a", "b"], indirect=True)
def test_indirect_true(server):
    pass


@pytest.mark.parametrize("server,port", [("a", 1), ("b", 2)], indirect=["server"])
def test_indirect_list(server, port):
    pass


@pytest.mark.parametrize("server,client", [("s", "c")], indirect=True)
def test_indirect_both(server, client):
    pass
