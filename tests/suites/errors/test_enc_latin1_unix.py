# coding: latin-1-unix
def test_latin1_unix():
    assert "é"
