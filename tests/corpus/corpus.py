#!/usr/bin/env python3
"""The conformance corpus: proctor against real pytest on real suites.

Usage:
  tests/corpus/corpus.py list    [--ci]              each suite and whether it is fetched
  tests/corpus/corpus.py fetch   [--ci] [SUITE...]   download, unpack, make venvs
  tests/corpus/corpus.py collect [--ci] [--proctor BIN] [--json FILE] [--show N] [SUITE...]
  tests/corpus/corpus.py run     [--ci] [--suite NAME]... [--proctor BIN] [--json FILE] [--show N]
  tests/corpus/corpus.py compare [--show N] PYTEST_DUMP PROCTOR_JSON

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
A common item whose markers differ is explained when proctor says why
(its `markers_uncertain`), when pytest stopped with an internal error
before a plugin hook added marks proctor lists without a source location,
or when a conftest proctor warns about (`pytest_collection_modifyitems`)
covers it and pytest has marks proctor lacks; any other is *silent*.
Agreement is exact / pytest items. `--json FILE` writes the per-suite figures
(the differential test reads them); the exit status is 0 when every suite ran.

`run` runs each suite marked `run = true` (`--ci`: `run-ci = true`;
`--suite NAME`: that one, marked or not) twice in its root with its venv:
bare `pytest` with `tests/corpus/plugin/record_outcomes.py`, and
`proctor run --json`, both with the suite's `args`, its `run-args` and
`-p no:cacheprovider`.
It compares, per test, the outcome (passed, failed, skipped, xfailed,
xpassed, error), the reason of a skip, xfail or xpass, the collection errors
(an error under the collector's node id in both) and the exit status (of
the process, and the one proctor's report records). A
module pytest skips whole at collection (`importorskip` at module level) has
no tests in pytest; proctor, which reads the skip statically and does not
import the module, lists each of its tests skipped: they agree when every
one has the module's reason. The exit status is 0 when every suite agreed,
1 when something differed.

`compare` compares two such reports made elsewhere (`bench/run/scale.sh`
does, on its generated suite): bare pytest's `record_outcomes.py` dump
and `proctor run --json`'s report, test by test as `run` does and by exit
status; it exits 1 when anything differs.
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
PLUGIN = ROOT / "tests" / "corpus" / "plugin"
# A run that takes longer than this is stopped and reported, never waited on.
RUN_LIMIT_S = 1800


def corpus_dir() -> Path:
    return Path(os.environ.get("PROCTOR_CORPUS", ROOT / ".corpus"))


def load_suites(names: list[str], ci_only: bool, key: str = "ci") -> dict[str, dict]:
    """The suites named (all when none), of those with `key` (`ci`, `run`,
    `run-ci`) set when `ci_only`."""
    suites = tomllib.loads(MANIFEST.read_text())["suites"]
    unknown = [n for n in names if n not in suites]
    if unknown:
        sys.exit(f"corpus: unknown suite(s) {', '.join(unknown)}; known: {', '.join(suites)}")
    for name, suite in suites.items():
        # CI fetches the `ci` subset only (`fetch --ci`).
        if suite.get("run-ci") and not (suite.get("ci") and suite.get("run")):
            sys.exit(f"corpus: {name} has run-ci = true but not ci = true and run = true")
    chosen = {n: s for n, s in suites.items() if (not names or n in names) and (not ci_only or s.get(key))}
    return chosen


def is_fetched(name: str, suite: dict) -> bool:
    return venv_python(name).exists() and (source_dir(name, suite) / ".unpacked").exists()


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


def pytest_items(name: str, suite: dict, extra: list[str]) -> tuple[dict, float, int]:
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
    return json.loads(dump.read_text()), elapsed, done.returncode


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


def is_subsequence(short: list[str], long: list[str]) -> bool:
    it = iter(long)
    return all(name in it for name in short)


def modifyitems_conftests(static: dict) -> list[str]:
    """Directories (rootdir-relative, "" for the rootdir) of the conftests
    proctor warns about for defining `pytest_collection_modifyitems`."""
    dirs = []
    for warning in static.get("warnings", []):
        if "pytest_collection_modifyitems" in warning.get("message", "") and warning["file"].endswith("conftest.py"):
            dirs.append(warning["file"].rpartition("/")[0])
    return dirs


def marker_diff_reason(item: dict, theirs: list[str], ours: list[dict], pytest_status: int, hook_dirs: list[str]):
    """Why proctor's markers of an item differ from pytest's, when proctor
    or pytest says why; None for a silent difference."""
    if item.get("markers_uncertain"):
        return item["markers_uncertain"]
    names = [m["name"] for m in ours]
    # Marks no source line writes (a plugin's, as `hypothesis` for `@given`)
    # that pytest lacks because it stopped before that plugin's hook.
    unwritten = [m["name"] for m in ours if "location" not in m]
    if pytest_status == 3 and is_subsequence(theirs, names):
        extra = list(names)
        for name in theirs:
            extra.remove(name)
        if all(name in unwritten for name in extra):
            return (f"pytest stopped with an internal error (exit 3) before the plugin hook "
                    f"that adds {', '.join(sorted(set(extra)))}")
    path = item["nodeid"].split("::", 1)[0]
    under = [d for d in hook_dirs if d == "" or path.startswith(d + "/")]
    if under and is_subsequence(names, theirs):
        return (f"{under[0] or '.'}/conftest.py's pytest_collection_modifyitems adds marks at run time "
                f"(proctor warns that it defines it)")
    return None


def compare(name: str, reference: dict, static: dict, pytest_status: int = 0) -> dict:
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
    hook_dirs = modifyitems_conftests(static)
    for item in known:
        ref = by_id.get(item["nodeid"])
        if ref is None:
            continue
        theirs = marker_names(ref["markers"])
        ours_full = [table[i] for i in item.get("markers", [])]
        ours = marker_names(ours_full)
        if theirs != ours:
            reason = marker_diff_reason(item, theirs, ours_full, pytest_status, hook_dirs)
            marker_diffs.append({"nodeid": item["nodeid"], "pytest": theirs, "proctor": ours, "reason": reason})
    silent_marker_diffs = [d for d in marker_diffs if d["reason"] is None]
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
        "silent_marker_diffs": silent_marker_diffs,
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
        reference, pytest_s, pytest_status = pytest_items(name, suite, extra)
        static, proctor_s, status = proctor_items(name, suite, proctor, extra)
        row = compare(name, reference, static, pytest_status)
        row.update(pytest_s=pytest_s, pytest_status=pytest_status, proctor_s=proctor_s, proctor_status=status, floor=suite.get("floor", 1.0),
                   marker_diffs_allowed=suite.get("marker-diffs", 0))
        rows.append(row)
        print(f"{name}: pytest {row['pytest_items']} items ({row['pytest_errors']} errors), "
              f"proctor exact {row['exact']} ({100 * row['agreement']:.2f}%), covered by dynamic {row['covered']}, "
              f"missing {len(row['missing'])}, extra {len(row['extra'])}, marker diffs {len(row['marker_diffs'])} "
              f"({len(row['silent_marker_diffs'])} silent), "
              f"order {'same' if row['same_order'] else 'DIFFERENT'}; pytest {pytest_s:.2f}s, proctor {proctor_s:.2f}s",
              flush=True)
        if pytest_status == 3:
            # An internal error: the dump's items are what pytest had when
            # it stopped (pytest_collection_finish runs in a `finally`). If
            # it stopped in a pytest_collection_modifyitems hook, node ids
            # are complete, but marks the hooks after it add are missing.
            print("   pytest stopped with an internal error (exit 3): if in a "
                  "pytest_collection_modifyitems hook, the marks later hooks add are missing from its items")
        for nodeid in row["missing"][: args.show]:
            print("   missing", nodeid)
        for nodeid in row["extra"][: args.show]:
            print("   extra  ", nodeid)
        for diff in row["silent_marker_diffs"][: args.show]:
            print("   markers", diff["nodeid"], "pytest", diff["pytest"], "proctor", diff["proctor"], "(SILENT: no reason)")
        explained: dict[str, int] = {}
        for diff in row["marker_diffs"]:
            if diff["reason"] is not None:
                explained[diff["reason"]] = explained.get(diff["reason"], 0) + 1
        for reason, count in sorted(explained.items(), key=lambda kv: -kv[1])[: args.show]:
            print(f"   markers differ x{count}: {reason}")
        for reason, count in row["dynamic_reasons"][: args.show]:
            print(f"   dynamic x{count}: {reason}")
    print()
    print("| suite | pytest items | exact | agreement | dynamic (covered) | missing | extra | markers differ | silent |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print(f"| {row['suite']} | {row['pytest_items']:,} | {row['exact']:,} | {100 * row['agreement']:.2f}% "
              f"| {row['covered']:,} | {len(row['missing']):,} | {len(row['extra']):,} | {len(row['marker_diffs']):,} "
              f"| {len(row['silent_marker_diffs']):,} |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


def suite_env(name: str) -> dict:
    """The environment both tools run a suite in: its venv, and nothing
    from the caller that changes what pytest does."""
    env = dict(os.environ, VIRTUAL_ENV=str(venv_dir(name)))
    for key in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE"):
        env.pop(key, None)
    return env


def timed(cmd: list, cwd: Path, env: dict, log: Path) -> tuple[int, float]:
    """Runs `cmd` with its output in `log`: (exit status, seconds); a
    status of None when it ran past RUN_LIMIT_S and was killed."""
    started = time.perf_counter()
    with open(log, "wb") as out:
        try:
            done = subprocess.run(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, timeout=RUN_LIMIT_S)
            status = done.returncode
        except subprocess.TimeoutExpired:
            status = None
    return status, time.perf_counter() - started


def tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def pytest_outcomes(name: str, suite: dict, extra: list[str], out: Path) -> dict:
    """Bare pytest's outcomes, through `plugin/record_outcomes.py`."""
    src = source_dir(name, suite)
    dump = out / f"{name}.run.pytest.json"
    dump.unlink(missing_ok=True)
    env = suite_env(name)
    env.update(PYTHONPATH=str(PLUGIN), PROCTOR_DUMP=str(dump))
    cmd = [venv_python(name), "-m", "pytest", "-p", "record_outcomes", "-p", "no:cacheprovider", *extra]
    status, elapsed = timed(cmd, src, env, out / f"{name}.run.pytest.log")
    doc = json.loads(dump.read_text()) if dump.exists() else None
    return {"status": status, "seconds": elapsed, "doc": doc, "log": out / f"{name}.run.pytest.log"}


def proctor_outcomes(name: str, suite: dict, proctor: str, extra: list[str], out: Path) -> dict:
    """`proctor run --json`'s outcomes, with pytest given the same arguments."""
    src = source_dir(name, suite)
    report = out / f"{name}.run.proctor.json"
    report.unlink(missing_ok=True)
    cmd = [proctor, "run", "--python", venv_python(name), "--json", report, "--no-history", "--",
           "-p", "no:cacheprovider", *extra]
    status, elapsed = timed(cmd, src, suite_env(name), out / f"{name}.run.proctor.log")
    doc = json.loads(report.read_text()) if report.exists() else None
    return {"status": status, "seconds": elapsed, "doc": doc, "log": out / f"{name}.run.proctor.log"}


def compare_runs(reference: dict, ours: dict) -> dict:
    """Per test: pytest's (outcome, reason) against proctor's. Reasons are
    compared for skips, xfails and xpasses only."""
    theirs = {nodeid: (t["outcome"], t["reason"]) for nodeid, t in reference["tests"].items()}
    for nodeid in reference["collect_errors"]:
        theirs[nodeid] = ("error", None)
    skipped_collectors = dict(reference["skipped_collectors"])
    mine = {}
    for test in ours["tests"]:
        outcome = test["outcome"]
        reason = test.get("reason") if outcome in ("skipped", "xfailed", "xpassed") else None
        mine[test["nodeid"]] = (outcome, reason)
    differences = []
    agree = 0
    # A collector pytest skipped whole: proctor's tests inside it, or the
    # collector itself, are skipped with its reason.
    for collector, reason in skipped_collectors.items():
        prefix = collector + ("/" if "::" not in collector and not collector.endswith(".py") else "::")
        inside = [n for n in mine if n == collector or n.startswith(prefix)]
        if not inside:
            differences.append({"nodeid": collector, "kind": "missing", "pytest": ["skipped", reason], "proctor": None})
            continue
        wrong = [n for n in inside if mine[n] != ("skipped", reason)]
        for nodeid in wrong:
            differences.append({"nodeid": nodeid, "kind": "outcome" if mine[nodeid][0] != "skipped" else "reason",
                                "pytest": ["skipped", reason], "proctor": list(mine[nodeid])})
        if not wrong:
            agree += 1
        for nodeid in inside:
            del mine[nodeid]
    for nodeid, (outcome, reason) in theirs.items():
        got = mine.pop(nodeid, None)
        if got is None:
            differences.append({"nodeid": nodeid, "kind": "missing", "pytest": [outcome, reason], "proctor": None})
        elif got[0] != outcome:
            differences.append({"nodeid": nodeid, "kind": "outcome", "pytest": [outcome, reason], "proctor": list(got)})
        elif got[1] != reason:
            differences.append({"nodeid": nodeid, "kind": "reason", "pytest": [outcome, reason], "proctor": list(got)})
        else:
            agree += 1
    for nodeid, got in mine.items():
        differences.append({"nodeid": nodeid, "kind": "extra", "pytest": None, "proctor": list(got)})
    counts: dict[str, int] = {}
    for outcome, _ in theirs.values():
        counts[outcome] = counts.get(outcome, 0) + 1
    if skipped_collectors:
        counts["skipped collectors"] = len(skipped_collectors)
    return {"tests": len(theirs) + len(skipped_collectors), "agree": agree, "differences": differences,
            "pytest_counts": counts}


def run_suites(args) -> int:
    if args.suite:
        suites = load_suites(args.suite, False)
    else:
        suites = load_suites([], True, "run-ci" if args.ci else "run")
    proctor = args.proctor or str(ROOT / "target" / "release" / "proctor")
    out = corpus_dir() / "out"
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for name, suite in suites.items():
        if not is_fetched(name, suite):
            sys.exit(f"corpus: {name} is not fetched; run `tests/corpus/corpus.py fetch {name}`")
        extra = list(suite.get("args", [])) + list(suite.get("run-args", []))
        reference = pytest_outcomes(name, suite, extra, out)
        ours = proctor_outcomes(name, suite, proctor, extra, out)
        row = {"suite": name, "pytest_status": reference["status"], "proctor_status": ours["status"],
               "pytest_s": reference["seconds"], "proctor_s": ours["seconds"]}
        problems = []
        for tool, result in (("pytest", reference), ("proctor", ours)):
            if result["status"] is None:
                problems.append(f"{tool} ran past {RUN_LIMIT_S}s and was stopped")
            elif result["doc"] is None:
                problems.append(f"{tool} wrote no report (exit {result['status']}):\n{tail(result['log'])}")
        if problems:
            row.update(tests=0, agree=0, differences=[], pytest_counts={}, problems=problems)
        else:
            row.update(compare_runs(reference["doc"], ours["doc"]), problems=[])
            if reference["status"] != ours["status"]:
                row["problems"].append(f"exit status: pytest {reference['status']}, proctor {ours['status']}")
            recorded = ours["doc"]["summary"].get("exit_code")
            if recorded != ours["status"]:
                row["problems"].append(f"proctor's JSON report records exit code {recorded}, its process exited {ours['status']}")
        rows.append(row)
        counts = ", ".join(f"{n} {k}" for k, n in sorted(row["pytest_counts"].items()))
        print(f"{name}: pytest {row['tests']} tests ({counts}), agree {row['agree']}, differ {len(row['differences'])}; "
              f"exit pytest {reference['status']}, proctor {ours['status']}; "
              f"pytest {reference['seconds']:.2f}s, proctor {ours['seconds']:.2f}s", flush=True)
        for problem in row["problems"]:
            print("   problem:", problem)
        for diff in row["differences"][: args.show]:
            print(f"   {diff['kind']:<7} {diff['nodeid']}: pytest {diff['pytest']}, proctor {diff['proctor']}")
    print()
    print("| suite | tests | agree | differ | exit (pytest / proctor) | pytest s | proctor s |")
    print("|---|---:|---:|---:|---|---:|---:|")
    for row in rows:
        print(f"| {row['suite']} | {row['tests']:,} | {row['agree']:,} | {len(row['differences']):,} "
              f"| {row['pytest_status']} / {row['proctor_status']} | {row['pytest_s']:.1f} | {row['proctor_s']:.1f} |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0 if all(not row["differences"] and not row["problems"] for row in rows) else 1


def compare_files(args) -> int:
    """`compare`: one pytest dump against one proctor report."""
    reference = json.loads(Path(args.pytest_dump).read_text())
    ours = json.loads(Path(args.proctor_json).read_text())
    row = compare_runs(reference, ours)
    statuses = (reference["exitstatus"], ours["summary"].get("exit_code"))
    counts = ", ".join(f"{n} {k}" for k, n in sorted(row["pytest_counts"].items()))
    print(f"pytest {row['tests']:,} tests ({counts}), agree {row['agree']:,}, "
          f"differ {len(row['differences']):,}; exit pytest {statuses[0]}, proctor {statuses[1]}")
    for diff in row["differences"][: args.show]:
        print(f"   {diff['kind']:<7} {diff['nodeid']}: pytest {diff['pytest']}, proctor {diff['proctor']}")
    return 0 if not row["differences"] and statuses[0] == statuses[1] else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    list_cmd = sub.add_parser("list")
    list_cmd.add_argument("--ci", action="store_true", help="only the suites marked ci = true")
    list_cmd.add_argument("--run-ci", action="store_true", help="only the suites marked run-ci = true")
    fetch_cmd = sub.add_parser("fetch")
    fetch_cmd.add_argument("--ci", action="store_true", help="only the suites marked ci = true")
    fetch_cmd.add_argument("suites", nargs="*")
    collect_cmd = sub.add_parser("collect")
    collect_cmd.add_argument("--ci", action="store_true", help="only the suites marked ci = true")
    collect_cmd.add_argument("--proctor", help="the proctor binary (default target/release/proctor)")
    collect_cmd.add_argument("--json", help="write the per-suite figures here")
    collect_cmd.add_argument("--show", type=int, default=10, help="differences to print per suite")
    collect_cmd.add_argument("suites", nargs="*")
    run_cmd = sub.add_parser("run")
    run_cmd.add_argument("--ci", action="store_true", help="only the suites marked run-ci = true (default: run = true)")
    run_cmd.add_argument("--suite", action="append", default=[], help="this suite (repeatable), marked run or not")
    run_cmd.add_argument("--proctor", help="the proctor binary (default target/release/proctor)")
    run_cmd.add_argument("--json", help="write the per-suite figures and differences here")
    run_cmd.add_argument("--show", type=int, default=10, help="differences to print per suite")
    compare_cmd = sub.add_parser("compare")
    compare_cmd.add_argument("--show", type=int, default=10, help="differences to print")
    compare_cmd.add_argument("pytest_dump", help="record_outcomes.py's file (PROCTOR_DUMP)")
    compare_cmd.add_argument("proctor_json", help="proctor run --json's report")
    args = parser.parse_args()
    if args.command == "compare":
        return compare_files(args)
    if args.command == "list":
        chosen = load_suites([], args.ci or args.run_ci, "run-ci" if args.run_ci else "ci")
        for name, suite in chosen.items():
            print(name, "fetched" if is_fetched(name, suite) else "missing")
        return 0
    if args.command == "fetch":
        for name, suite in load_suites(args.suites, args.ci).items():
            fetch(name, suite)
        return 0
    if args.command == "run":
        return run_suites(args)
    return collect(args)


if __name__ == "__main__":
    sys.exit(main())
