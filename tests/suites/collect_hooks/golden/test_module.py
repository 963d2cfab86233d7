# A test module under the hook's directory: the hook returns None for it,
# pytest's python plugin collects it as usual.
def test_in_golden():
    pass
