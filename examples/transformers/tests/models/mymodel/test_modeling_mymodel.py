import unittest

from transformers.testing_utils import require_torch, require_torch_large_accelerator, slow

from ...test_generation_common import GenerationTesterMixin
from ...test_modeling_common import ModelTesterMixin


class MyModelTester:
    def __init__(self, parent):
        self.parent = parent


@require_torch
class MyModelTest(ModelTesterMixin, GenerationTesterMixin, unittest.TestCase):
    model_tester_class = MyModelTester
    test_resize_embeddings = False

    def test_model(self):
        pass

    # Upstream habit: a slow from_pretrained check outside the integration
    # class. The nightly job selects `-k IntegrationTest`, so it never runs.
    @slow
    def test_model_from_pretrained(self):
        pass


class MyModelIntegrationTest(unittest.TestCase):
    @slow
    @require_torch
    def test_inference(self):
        pass

    @slow
    @require_torch
    def test_generate(self):
        pass

    # The 70B checkpoint: more than the A10's 24 GB.
    @slow
    @require_torch
    @require_torch_large_accelerator(min_vram_gb=80)
    def test_inference_70b(self):
        pass
