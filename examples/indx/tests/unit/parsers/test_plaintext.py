def test_plaintext_parser_satisfies_protocol():
    pass
