"""ModelTesterMixin: tests every model test class inherits."""


class ModelTesterMixin:
    model_tester_class = None
    test_resize_embeddings = True
    has_attentions = True

    def test_save_load(self):
        pass

    def test_forward_signature(self):
        pass

    def test_resize_embeddings(self):
        if not self.test_resize_embeddings:
            self.skipTest("test_resize_embeddings is False")

    def test_attention_outputs(self):
        if not self.has_attentions:
            self.skipTest("model has no attentions")
