"""Generators, re-exported by star imports (as networkx does)."""

from shapes.generators.polygons import *
