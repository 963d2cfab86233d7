import unittest

import pytest

from mixins import ModelTesterMixin


class BertModelTest(ModelTesterMixin, unittest.TestCase):
    test_pruning = False


class GPTModelTest(ModelTesterMixin, unittest.TestCase):
    fx_compatible = True
    test_resize_embeddings = False


class SetAtRunTimeTest(ModelTesterMixin, unittest.TestCase):
    test_pruning = False

    def setUp(self):
        self.test_pruning = True


class GpuBase:
    has_gpu = False

    def test_on_gpu(self):
        if not self.has_gpu:
            pytest.skip(reason="needs a GPU")


class TestCpu(GpuBase):
    pass


class TestGpu(GpuBase):
    has_gpu = 1
