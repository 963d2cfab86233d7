"""Every .yaml file, and every .txt file but notes.txt, under this
directory is a golden file with two checks."""

import pytest

from golden_items import GoldenItem


def pytest_collect_file(parent, file_path):
    if file_path.suffix == ".yaml" or (
        file_path.suffix == ".txt" and file_path.name != "notes.txt"
    ):
        return GoldenFile.from_parent(parent, path=file_path)
    return None


class ParseItem(GoldenItem):
    pass


class GoldenFile(pytest.File):
    def collect(self):
        yield ParseItem.from_parent(self, name="parse")
        yield GoldenItem.from_parent(self, name="render")
