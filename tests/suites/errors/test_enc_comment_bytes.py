# café: invalid UTF-8 inside a comment is accepted by CPython
def test_comment_bytes():
    pass
