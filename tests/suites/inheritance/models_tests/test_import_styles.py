"""Bases reached through every import spelling, and re-collected imports."""

import models_tests.base
import models_tests.mixins as mx
from models_tests import base as base_module

# Imported test classes and functions are collected again here (pytest's
# collect_imported_tests defaults to true), under *this* module's node id,
# in the order the names were bound in this module.
from .base import TestReexported, test_shared_function


class TestDottedBase(models_tests.base.BaseTests):
    pass


class TestAliasedModule(mx.CoreMixin):
    def test_own(self):
        pass


class TestFromModuleAlias(base_module.BaseTests):
    def test_base_first(self):
        # Overridden: the remaining inherited tests come first.
        pass


def test_local_function():
    pass
