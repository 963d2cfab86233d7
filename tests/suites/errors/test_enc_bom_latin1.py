# coding: latin-1
# A BOM with a Latin-1 cookie: CPython refuses the file.
def test_bom_latin1():
    pass
