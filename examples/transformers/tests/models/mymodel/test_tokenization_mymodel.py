import unittest


class TokenizerTesterMixin:
    def test_encode_decode_round_trip(self):
        pass

    def test_add_special_tokens(self):
        pass


class MyModelTokenizationTest(TokenizerTesterMixin, unittest.TestCase):
    def test_full_tokenizer(self):
        pass
