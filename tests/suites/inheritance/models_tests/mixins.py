"""Transformers-style mixins: each contributes a batch of tests.

CoreMixin <- GenerationMixin (a two-level chain), and ModelTesterMixin.
"""

import pytest

from shared.markers import slow


class CoreMixin:
    def test_core_forward(self):
        pass

    def test_core_save_load(self):
        pass


@pytest.mark.mixin_marker
class GenerationMixin(CoreMixin):
    def test_generate_greedy(self):
        pass

    @slow
    def test_generate_beam(self):
        pass

    def test_core_save_load(self):
        # Overrides CoreMixin's: collected once, at GenerationMixin's position.
        pass


class ModelTesterMixin:
    # The class-level pytestmark of a base reaches subclasses through the
    # MRO (pytest reads pytestmark from every class's own __dict__).
    pytestmark = [pytest.mark.mixin_marker("model")]

    def test_model_init(self):
        pass

    def test_model_outputs(self):
        pass

    def helper_not_a_test(self):
        pass
