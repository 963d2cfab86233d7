"""Outside the mirrored directory: not checked."""  # OK


def test_flow():
    pass
