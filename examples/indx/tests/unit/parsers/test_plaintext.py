from indx.parsers.plaintext import PlaintextParser


def test_plaintext_parser_satisfies_protocol():
    parser = PlaintextParser()
    assert parser.accepts("notes.md")
    assert parser.parse(b"a\r\nb") == "a\nb"
