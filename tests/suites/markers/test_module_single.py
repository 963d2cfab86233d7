"""A module pytestmark that is a single mark (not a list), via an alias."""

from pytest import mark

pytestmark = mark.integration


def test_one():
    pass


class TestA:
    def test_two(self):
        pass
