#!/usr/bin/env python3
"""The conformance corpus: proctor against real pytest on real suites.

Usage:
  tests/corpus/corpus.py list    [--ci]              each suite and whether it is fetched
  tests/corpus/corpus.py fetch   [--ci] [SUITE...]   download, unpack, make venvs
  tests/corpus/corpus.py collect [--ci] [--proctor BIN] [--json FILE] [--show N] [SUITE...]

The suites and their pinned test dependencies are in `tests/corpus/suites.toml`.
Everything this script makes lives under `.corpus/` at the repository root
(`PROCTOR_CORPUS` overrides it): `src/NAME-VERSION/` is the unpacked sdist,
`venv/NAME/` its virtualenv (pytest from `tests/requirements.txt`, the suite's
`deps`, and the project itself). `fetch` is the only step that needs the
network (PyPI); it is idempotent and reinstalls a venv when its pins change.

`collect` runs, in each suite's root, real `pytest --collect-only` with
`tests/harness/dump_items.py` and `proctor collect --json`, both with the
suite's venv as `VIRTUAL_ENV`, and compares the node ids (exact, in order) and
the markers of the common items. A pytest id that proctor does not list is
*covered* when proctor lists its function as dynamic (with a reason); it is
*missing* otherwise. An id proctor lists that pytest does not is *extra*.
Agreement is exact / pytest items. `--json FILE` writes the per-suite figures
(the differential test reads them); the exit status is 0 when every suite ran.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / "tests" / "corpus" / "suites.toml"
HARNESS = ROOT / "tests" / "harness"


def corpus_dir() -> Path:
    return Path(os.environ.get("PROCTOR_CORPUS", ROOT / ".corpus"))


def load_suites(names: list[str], ci_only: bool) -> dict[str, dict]:
    suites = tomllib.loads(MANIFEST.read_text())["suites"]
    unknown = [n for n in names if n not in suites]
    if unknown:
        sys.exit(f"corpus: unknown suite(s) {', '.join(unknown)}; known: {', '.join(suites)}")
    chosen = {n: s for n, s in suites.items() if (not names or n in names) and (not ci_only or s.get("ci"))}
    return chosen


def pinned_pytest() -> list[str]:
    lines = (ROOT / "tests" / "requirements.txt").read_text().splitlines()
    return [line.strip() for line in lines if line.strip().startswith("pytest==")]


def source_dir(name: str, suite: dict) -> Path:
    return corpus_dir() / "src" / f"{name}-{suite['version']}"


def venv_dir(name: str) -> Path:
    return corpus_dir() / "venv" / name


def venv_python(name: str) -> Path:
    return venv_dir(name) / "bin" / "python"


def run(cmd: list, **kwargs) -> None:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    subprocess.run(cmd, check=True, **kwargs)


def fetch(name: str, suite: dict) -> None:
    src = source_dir(name, suite)
    if not (src / ".unpacked").exists():
        downloads = corpus_dir() / "sdists"
        downloads.mkdir(parents=True, exist_ok=True)
        spec = f"{name}=={suite['version']}"
        run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
             "--no-binary", ":all:", "--no-deps", "--dest", downloads, spec])
        archive = next(
            (p for p in downloads.iterdir()
             if p.name.lower().replace("_", "-").startswith(f"{name}-{suite['version']}".lower().replace("_", "-"))
             and p.name.endswith((".tar.gz", ".zip"))),
            None,
        )
        if archive is None:
            sys.exit(f"corpus: no sdist for {spec} in {downloads}")
        if src.exists():
            shutil.rmtree(src)
        staging = src.with_name(src.name + ".staging")
        if staging.exists():
            shutil.rmtree(staging)
        staging.mkdir(parents=True)
        if archive.name.endswith(".zip"):
            shutil.unpack_archive(archive, staging)
        else:
            with tarfile.open(archive) as tar:
                tar.extractall(staging, filter="data")
        (top,) = list(staging.iterdir())
        top.rename(src)
        staging.rmdir()
        (src / ".unpacked").write_text(archive.name + "\n")

    venv = venv_dir(name)
    wanted = pinned_pytest() + list(suite.get("deps", []))
    stamp_text = json.dumps({"deps": wanted, "install": suite.get("install", True), "python": sys.version})
    stamp = venv / ".corpus-stamp"
    if stamp.exists() and stamp.read_text() == stamp_text:
        return
    if venv.exists():
        shutil.rmtree(venv)
    run([sys.executable, "-m", "venv", venv])
    pip = [venv_python(name), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    run(pip + wanted)
    if suite.get("install", True):
        run(pip + ["--no-deps", str(src)])
    stamp.write_text(stamp_text)


def pytest_items(name: str, suite: dict, extra: list[str]) -> tuple[dict, float]:
    src = source_dir(name, suite)
    dump = corpus_dir() / "out" / f"{name}.pytest.json"
    dump.parent.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(HARNESS), PROCTOR_DUMP=str(dump), VIRTUAL_ENV=str(venv_dir(name)))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cmd = [venv_python(name), "-m", "pytest", "--collect-only", "-q", "-p", "dump_items",
           "-p", "no:cacheprovider", "-m", "", *extra]
    started = time.perf_counter()
    done = subprocess.run(cmd, cwd=src, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if not dump.exists():
        sys.exit(f"corpus: pytest wrote no items for {name} (exit {done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return json.loads(dump.read_text()), elapsed


def proctor_items(name: str, suite: dict, proctor: str, extra: list[str]) -> tuple[dict, float, int]:
    src = source_dir(name, suite)
    env = dict(os.environ, VIRTUAL_ENV=str(venv_dir(name)))
    started = time.perf_counter()
    done = subprocess.run([proctor, "collect", "--json", *extra], cwd=src, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    try:
        return json.loads(done.stdout), elapsed, done.returncode
    except json.JSONDecodeError:
        sys.exit(f"corpus: proctor gave no JSON for {name} (exit {done.returncode}):\n{done.stderr[-3000:]}")


def marker_names(markers: list[dict]) -> list[str]:
    return [m["name"] for m in markers]


def compare(name: str, reference: dict, static: dict) -> dict:
    pytest_ids = [item["nodeid"] for item in reference["items"]]
    by_id = {item["nodeid"]: item for item in reference["items"]}
    known = [item for item in static["items"] if item.get("dynamic") is None]
    # collect --json version 2: items refer to the document's marker table.
    table = static.get("markers", [])
    dynamic = {item["nodeid"]: item["dynamic"] for item in static["items"] if item.get("dynamic") is not None}
    known_ids = [item["nodeid"] for item in known]
    in_pytest, in_static = set(pytest_ids), set(known_ids)
    common = in_pytest & in_static

    def function_of(nodeid: str) -> str:
        return nodeid.split("[", 1)[0]

    # A dynamic item may stand for a whole directory (a conftest's
    # `pytest_collect_file`): its node id is the directory.
    dynamic_dirs = {n: r for n, r in dynamic.items() if "::" not in n and not n.endswith(".py")}

    def dynamic_reason(nodeid: str):
        found = dynamic.get(nodeid) or dynamic.get(function_of(nodeid))
        if found is None:
            path = nodeid.split("::", 1)[0]
            found = next((r for d, r in dynamic_dirs.items() if path.startswith(d + "/")), None)
        return found

    covered = [n for n in pytest_ids if n not in in_static and dynamic_reason(n) is not None]
    by_reason: dict[str, int] = {}
    for nodeid in covered:
        reason = dynamic_reason(nodeid)
        by_reason[reason] = by_reason.get(reason, 0) + 1
    missing = [n for n in pytest_ids if n not in in_static and n not in set(covered)]
    extra = [n for n in known_ids if n not in in_pytest]
    order = [n for n in pytest_ids if n in common] == [n for n in known_ids if n in common]
    marker_diffs = []
    for item in known:
        ref = by_id.get(item["nodeid"])
        if ref is None:
            continue
        theirs = marker_names(ref["markers"])
        ours = marker_names([table[i] for i in item.get("markers", [])])
        if theirs != ours:
            marker_diffs.append({"nodeid": item["nodeid"], "pytest": theirs, "proctor": ours})
    total = len(pytest_ids)
    return {
        "suite": name,
        "pytest_items": total,
        "pytest_errors": len(reference.get("errors", [])),
        "proctor_items": len(static["items"]),
        "proctor_dynamic": len(dynamic),
        "proctor_errors": len(static.get("errors", [])),
        "exact": len(common),
        "covered": len(covered),
        "missing": missing,
        "extra": extra,
        "same_order": order,
        "marker_diffs": marker_diffs,
        "agreement": len(common) / total if total else 1.0,
        "dynamic_reasons": sorted(by_reason.items(), key=lambda kv: -kv[1]),
    }


def collect(args) -> int:
    suites = load_suites(args.suites, args.ci)
    proctor = args.proctor or str(ROOT / "target" / "release" / "proctor")
    rows = []
    for name, suite in suites.items():
        if not (venv_python(name).exists() and (source_dir(name, suite) / ".unpacked").exists()):
            sys.exit(f"corpus: {name} is not fetched; run `tests/corpus/corpus.py fetch {name}`")
        extra = list(suite.get("args", []))
        reference, pytest_s = pytest_items(name, suite, extra)
        static, proctor_s, status = proctor_items(name, suite, proctor, extra)
        row = compare(name, reference, static)
        row.update(pytest_s=pytest_s, proctor_s=proctor_s, proctor_status=status, floor=suite.get("floor", 1.0))
        rows.append(row)
        print(f"{name}: pytest {row['pytest_items']} items ({row['pytest_errors']} errors), "
              f"proctor exact {row['exact']} ({100 * row['agreement']:.2f}%), covered by dynamic {row['covered']}, "
              f"missing {len(row['missing'])}, extra {len(row['extra'])}, marker diffs {len(row['marker_diffs'])}, "
              f"order {'same' if row['same_order'] else 'DIFFERENT'}; pytest {pytest_s:.2f}s, proctor {proctor_s:.2f}s",
              flush=True)
        for nodeid in row["missing"][: args.show]:
            print("   missing", nodeid)
        for nodeid in row["extra"][: args.show]:
            print("   extra  ", nodeid)
        for diff in row["marker_diffs"][: args.show]:
            print("   markers", diff["nodeid"], "pytest", diff["pytest"], "proctor", diff["proctor"])
        for reason, count in row["dynamic_reasons"][: args.show]:
            print(f"   dynamic x{count}: {reason}")
    print()
    print("| suite | pytest items | exact | agreement | dynamic (covered) | missing | extra | markers differ |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print(f"| {row['suite']} | {row['pytest_items']:,} | {row['exact']:,} | {100 * row['agreement']:.2f}% "
              f"| {row['covered']:,} | {len(row['missing']):,} | {len(row['extra']):,} | {len(row['marker_diffs']):,} |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    list_cmd = sub.add_parser("list")
    list_cmd.add_argument("--ci", action="store_true", help="only the suites marked ci = true")
    fetch_cmd = sub.add_parser("fetch")
    fetch_cmd.add_argument("--ci", action="store_true", help="only the suites marked ci = true")
    fetch_cmd.add_argument("suites", nargs="*")
    collect_cmd = sub.add_parser("collect")
    collect_cmd.add_argument("--ci", action="store_true", help="only the suites marked ci = true")
    collect_cmd.add_argument("--proctor", help="the proctor binary (default target/release/proctor)")
    collect_cmd.add_argument("--json", help="write the per-suite figures here")
    collect_cmd.add_argument("--show", type=int, default=10, help="differences to print per suite")
    collect_cmd.add_argument("suites", nargs="*")
    args = parser.parse_args()
    if args.command == "list":
        for name, suite in load_suites([], args.ci).items():
            fetched = venv_python(name).exists() and (source_dir(name, suite) / ".unpacked").exists()
            print(name, "fetched" if fetched else "missing")
        return 0
    if args.command == "fetch":
        for name, suite in load_suites(args.suites, args.ci).items():
            fetch(name, suite)
        return 0
    return collect(args)


if __name__ == "__main__":
    sys.exit(main())
