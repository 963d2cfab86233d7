"""testpaths glob extra_*: first match."""


def test_extra_a():
    pass
