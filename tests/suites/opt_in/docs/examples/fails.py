# pytest: e2e, slow
"""An example that exits with an error: it fails, with its stderr."""
import sys

print("about to fail", file=sys.stderr)
raise SystemExit("boom")
