import unittest

from transformers.testing_utils import require_torch_gpu, slow


# Quantization tests run in a workflow this miniature does not model: no
# job here reaches tests/quantization.
@require_torch_gpu
class Bnb4BitTest(unittest.TestCase):
    @slow
    def test_quantized_model_generates(self):
        pass
