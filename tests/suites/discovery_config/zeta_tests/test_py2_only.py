# Named in collect_ignore inside an `if` in the root conftest.
def test_only_on_python2_ignored():
    pass
