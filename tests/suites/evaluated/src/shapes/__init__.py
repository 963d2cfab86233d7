"""The project's own source: names the tests parametrize over."""

VALID = frozenset({"circle", "square", "triangle", "hexagon"})
DEPRECATED = {"hexagon"}
SIDES = {"square": 4, "triangle": 3, "hexagon": 6}


def area(kind):
    return kind


def _area_python(kind):
    return kind


fast_area = area

# Re-exported through two star imports, filtered by `__all__`.
from shapes.generators import *
