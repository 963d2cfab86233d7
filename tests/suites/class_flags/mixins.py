import pytest


class ModelTesterMixin:
    test_pruning = True
    fx_compatible = False
    test_resize_embeddings = True

    def test_pruning_heads(self):
        if not self.test_pruning:
            self.skipTest(reason="test_pruning is set to False")

    def test_fx(self):
        """Traces the model with torch.fx."""
        if not self.fx_compatible:
            self.skipTest("fx is not supported")

    def test_resize(self):
        if not self.test_resize_embeddings:
            pytest.skip("resizing is switched off")

    def test_always(self):
        pass
