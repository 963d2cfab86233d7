"""A module with __test__ = False yields no items at all."""

__test__ = False


def test_never():
    pass


class TestNever:
    def test_never(self):
        pass
