"""The reference for proctor's examples and notebooks: the collector the
Mellea document describes, written from the document as a plugin (load it
with ``-p opt_in_reference``, ``tests/harness`` on ``PYTHONPATH``), run with
nbmake (``--nbmake``) for the notebooks. proctor's differential tests run
bare pytest with it and check that proctor, with ``[examples]`` and
``[notebooks]`` instead, collects the same items with the same markers and
gives them the same outcomes.

- A ``.py`` file under a ``docs/examples`` folder is a test only when one
  of its first lines (before any code) is ``# pytest: m1, m2``; the item is
  ``<file>::<file name>`` with those markers, and runs the file as a
  subprocess: status 0 passes, a ``pytest.skip`` in the script skips
  (``Skipped:`` in its stderr), any other status fails.
- A notebook (collected by nbmake) gets the markers of its
  ``metadata.mellea.markers``; one without the block is skipped with a
  reason, one whose ``packages`` are not importable is skipped.
"""

import importlib.util
import json
import subprocess
import sys

import pytest

COMMENT = "# pytest:"
METADATA_KEY = "mellea"


def _example_markers(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith(COMMENT):
                return [m.strip() for m in line[len(COMMENT):].split(",") if m.strip()]
            if line and not line.startswith("#") and not line.startswith('"""'):
                break
    return None


def _is_example(path):
    return path.suffix == ".py" and path.name not in ("conftest.py", "__init__.py") and "examples" in path.parts and "docs" in path.parts


def pytest_collect_file(file_path, parent):
    if _is_example(file_path) and _example_markers(file_path) is not None:
        return ExampleFile.from_parent(parent, path=file_path)
    return None


class ExampleFile(pytest.File):
    def collect(self):
        item = ExampleItem.from_parent(self, name=self.path.name)
        for name in _example_markers(self.path):
            item.add_marker(getattr(pytest.mark, name))
        return [item]


class ExampleItem(pytest.Item):
    def runtest(self):
        done = subprocess.run([sys.executable, str(self.path)], capture_output=True, text=True)
        if done.returncode == 0:
            return
        if "Skipped:" in done.stderr:
            pytest.skip("example skipped itself")
        raise AssertionError("example exited with status %d\n%s" % (done.returncode, done.stderr))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    for item in items:
        path = getattr(item, "path", None)
        if path is None or path.suffix != ".ipynb":
            continue
        with open(path, encoding="utf-8") as f:
            block = json.load(f).get("metadata", {}).get(METADATA_KEY)
        if block is None:
            item.add_marker(pytest.mark.skip(reason="no %s metadata block" % METADATA_KEY))
            continue
        for name in block.get("markers", []):
            item.add_marker(getattr(pytest.mark, name))
        missing = [p for p in block.get("packages", []) if importlib.util.find_spec(p) is None]
        if missing:
            item.add_marker(pytest.mark.skip(reason="missing packages: %s" % ", ".join(missing)))
