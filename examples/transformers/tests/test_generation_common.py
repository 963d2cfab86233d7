"""GenerationTesterMixin: greedy, sampling, beam search."""


class GenerationTesterMixin:
    def test_greedy_generate(self):
        pass

    def test_beam_search_generate(self):
        pass
