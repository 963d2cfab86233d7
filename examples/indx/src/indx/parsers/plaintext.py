"""The zero-dependency plaintext parser."""


class PlaintextParser:
    suffixes = (".txt", ".md")

    def accepts(self, path):
        return str(path).endswith(self.suffixes)

    def parse(self, data):
        if isinstance(data, bytes):
            data = data.decode("utf-8", errors="replace")
        return data.replace("\r\n", "\n")
