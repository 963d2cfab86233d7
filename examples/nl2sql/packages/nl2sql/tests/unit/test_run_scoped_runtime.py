def test_derive_leaves_parent_runtime_unchanged():
    pass
