"""testpaths glob extra_*: matches are sorted, so extra_a comes first."""


def test_extra_b():
    pass
