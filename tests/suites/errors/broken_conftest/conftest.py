# A conftest with a syntax error: pytest reports the directory and
# collects nothing below it.
def broken(:
    pass
