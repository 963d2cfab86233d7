"""``from unittest import TestCase`` puts a class named TestCase in the module.

pytest does try to collect the imported ``TestCase`` itself (it is a
unittest.TestCase subclass of itself), but it has no test methods and no
runTest, so it yields no items.  Subclasses defined here are collected.
"""

import abc
from unittest import TestCase
from unittest import TestCase as Case


class TestViaImportedName(TestCase):
    def test_b(self):
        pass

    def test_a(self):
        pass


class ViaAlias(Case):
    def test_alias(self):
        pass


class AbstractCase(TestCase, metaclass=abc.ABCMeta):
    # Abstract (an unimplemented abstractmethod): not collected.
    @abc.abstractmethod
    def make(self):
        raise NotImplementedError

    def test_abstract(self):
        pass


class ConcreteCase(AbstractCase):
    def make(self):
        return 1

    def test_concrete(self):
        pass
