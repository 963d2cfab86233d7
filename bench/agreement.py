#!/usr/bin/env python3
"""Node-id agreement between `proctor collect --json` and real pytest on any suite.

Usage: bench/agreement.py SUITE_DIR PYTHON PROCTOR [EXTRA_ARGS...]

PYTHON is an interpreter that has pytest and the suite's test dependencies
installed; PROCTOR is the proctor binary. Both run with cwd = SUITE_DIR. pytest
runs with `-m ""` so addopts' marker filters do not hide items (proctor lists
every item). Prints: exact matches, pytest items covered by proctor's dynamic
items (same function, parameters unknown statically), missing and extra ids,
and whether the common items come in the same order.
"""
import collections
import json
import os
import subprocess
import sys


def main() -> int:
    suite, python, proctor = sys.argv[1:4]
    extra = sys.argv[4:]
    run = subprocess.run([proctor, "collect", "--json", *extra], cwd=suite, capture_output=True, text=True)
    data = json.loads(run.stdout)
    pytest = subprocess.run(
        [python, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-m", "", *extra],
        cwd=suite,
        capture_output=True,
        text=True,
    )
    pytest_ids = [
        line for line in pytest.stdout.splitlines()
        if "::" in line and not line.startswith(("ERROR", "FAILED")) and " " not in line.split("::")[0]
    ]
    static = [i["nodeid"] for i in data["items"] if i["dynamic"] is None]
    dynamic = {i["nodeid"] for i in data["items"] if i["dynamic"] is not None}
    in_pytest, in_static = set(pytest_ids), set(static)
    common = in_pytest & in_static
    covered = {n for n in in_pytest - in_static if n.split("[")[0] in dynamic}
    missing = sorted(in_pytest - in_static - covered)
    extra_ids = sorted(in_static - in_pytest)
    total = max(1, len(pytest_ids))
    print(f"pytest items {len(pytest_ids)}; proctor static {len(static)}, dynamic {len(dynamic)}, errors {len(data['errors'])}")
    print(f"exact {len(common)} ({100 * len(common) / total:.2f}%), covered by dynamic {len(covered)}, "
          f"missing {len(missing)}, extra {len(extra_ids)}; "
          f"agreement {100 * (len(common) + len(covered)) / total:.2f}%")
    same_order = [n for n in pytest_ids if n in in_static] == [n for n in static if n in in_pytest]
    print(f"common items in the same order: {same_order}")
    limit = int(os.environ.get("SHOW", "10"))
    for n in missing[:limit]:
        print("  missing", n)
    for n in extra_ids[:limit]:
        print("  extra  ", n)
    reasons = collections.Counter(i["dynamic"] for i in data["items"] if i["dynamic"])
    for reason, count in reasons.most_common(5):
        print(f"  dynamic x{count}: {reason}")
    for warning in data.get("warnings", []):
        print(f"  warning: {warning['file']}: {warning['message']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
