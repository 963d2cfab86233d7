"""Item classes the golden conftest uses."""

import pytest


class GoldenItem(pytest.Item):
    """A check of one golden file."""

    def runtest(self):
        assert self.path.read_text(encoding="utf-8") is not None

    def reportinfo(self):
        return self.path, None, f"golden: {self.name}"
