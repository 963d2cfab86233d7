# Two test modules with the same basename and no __init__.py: in pytest's
# default "prepend" import mode both import as `test_samename`, so the second
# one (same_b/) fails with "import file mismatch" and its tests are lost.
def test_first_copy():
    pass
