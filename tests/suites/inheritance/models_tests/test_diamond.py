"""A diamond: the C3 linearisation decides the order of inherited tests."""


class Root:
    def test_root(self):
        pass


class Left(Root):
    def test_left(self):
        pass


class Right(Root):
    def test_right(self):
        pass

    def test_root(self):
        # Overrides Root.test_root; Right precedes Root in the MRO.
        pass


class TestDiamond(Left, Right):
    # MRO: TestDiamond, Left, Right, Root, object.
    # Collected: test_right, test_root (Right's), test_left, test_diamond.
    def test_diamond(self):
        pass
