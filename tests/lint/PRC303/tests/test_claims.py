def test_parse_strips_comments_and_joins_lines():  # Error
    pass


def test_parse_strips_comments():  # OK
    pass


def test_android_client_connects():  # OK: `and` inside a word
    pass


def test_sand():  # OK
    pass


class TestParser:
    def test_reads_and_writes(self):  # Error
        pass
