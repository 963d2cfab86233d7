"""Concrete test classes assembled from mixins in other modules.

Order inside a class: pytest walks the MRO and emits the tests of the *last*
class in the MRO first (reverse MRO order), each class's own tests in its
definition order, and a name is taken from the first class in the MRO that
defines it (so an override sits at the overriding class's position).
"""

import unittest

import pytest

from models_tests.mixins import CoreMixin, GenerationMixin
from models_tests.mixins import ModelTesterMixin as MTM

from .base import BaseTests


@pytest.mark.model
class TestBertModel(MTM, GenerationMixin):
    # MRO: TestBertModel, ModelTesterMixin, GenerationMixin, CoreMixin, object.
    # Collected: CoreMixin's test_core_forward, then GenerationMixin's three
    # (its test_core_save_load override included), then ModelTesterMixin's two,
    # then this class's own.
    def test_bert_specific(self):
        pass


class TestGPTModel(GenerationMixin, MTM):
    # Mixins listed the other way around: ModelTesterMixin's tests now come
    # before CoreMixin/GenerationMixin's.  (C3 MRO: TestGPTModel,
    # GenerationMixin, CoreMixin, ModelTesterMixin, object.)
    def test_model_init(self):
        # Overrides ModelTesterMixin.test_model_init: position of this class.
        pass


class TestFromBase(BaseTests):
    # BaseTests comes from a relative import; its @base_marker reaches us.
    def test_base_overridden(self):
        pass

    def test_child_only(self):
        pass


class TestCoreOnly(CoreMixin):
    pass


class TestT5Model(MTM, GenerationMixin, unittest.TestCase):
    # The Transformers shape: mixins + unittest.TestCase.  Being a TestCase,
    # its tests are collected by unittest's rules: all inherited test* names,
    # sorted alphabetically (see the unittest_cases suite), not in MRO order.
    def test_t5_specific(self):
        pass
