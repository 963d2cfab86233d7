"""A nested conftest: its collect_ignore is relative to this directory."""

collect_ignore = ["test_local_ignored.py"]
