X = 1
# coding: latin-1
# The cookie is on line 2 after code: ignored, so this is UTF-8.
def test_late_cookie():
    assert "é"
