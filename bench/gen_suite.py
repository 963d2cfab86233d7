#!/usr/bin/env python3
"""Deterministic generator for a large synthetic pytest suite.

    python3 bench/gen_suite.py OUT_DIR --files 10000 [--seed 1234]

Writes a realistic, importable test tree into OUT_DIR (which must not exist or
be empty).  The same --files/--seed always produce byte-identical output.

Layout::

    OUT_DIR/
      pyproject.toml            [tool.pytest.ini_options]: testpaths, markers,
                                pythonpath, addopts = --strict-markers
      testkit/                  shared helper package (mixins, base classes),
                                imported absolutely (pythonpath = ["."])
      tests/
        conftest.py             root fixtures, several parametrized
        <area>/                 ~1 area per 50 files; ~60% are packages
          __init__.py           (package areas, and all their subdirs)
          helpers.py            package areas: mixins imported relatively
                                (from ..helpers import X) and absolutely
                                (from <area>.helpers import X)
          support_<area>.py     plain areas: mixins imported absolutely by the
                                test modules next to it
          conftest.py           some areas: fixtures with params, overrides
          <sub>/[<subsub>/]     nested directories, some with a conftest.py
          test_*.py / *_test.py the test modules (OUT has exactly --files)

Test modules mix: plain and async functions, classes with methods (incl. a
nested class and in-module base classes), classes inheriting test methods from
mixins defined in helper modules, unittest.TestCase classes (some not named
Test*), @pytest.mark.parametrize with ints / strings / floats / None / bools /
bytes / tuples / pytest.param(id=..., marks=...) / ids=[...] / module
constants, stacked parametrize, parametrized classes, indirect
parametrization, module ``pytestmark`` (single and list), marker decorators
with args and kwargs, fixtures with params (conftest and module level, one of
them module-scoped so pytest reorders items), usefixtures, ``from pytest
import mark, param`` style.  A small share of parametrize calls use an
``ids=`` callable, which a static collector cannot evaluate (dynamic items).

Every module imports cleanly under real pytest (``pytest --collect-only``
reports 0 errors); test module basenames are unique across the tree because
modules in non-package directories are imported by basename.
"""

from __future__ import annotations

import argparse
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path

SUBJECTS = [
    "parse", "render", "login", "cache", "invoice", "upload", "search", "token",
    "session", "queue", "schema", "export", "retry", "config", "widget", "report",
    "user", "order", "payment", "index", "stream", "archive", "metric", "router",
]
SCENARIOS = [
    "empty", "valid", "invalid", "large", "unicode", "timeout", "missing",
    "duplicate", "nested", "concurrent", "partial", "expired",
]
EXPECTED = ["ok", "raises", "returns_none", "is_cached", "logs_warning", "roundtrips"]
AREA_WORDS = [
    "billing", "accounts", "search", "storage", "network", "auth", "reports",
    "ingest", "scheduler", "notifications", "catalog", "checkout", "analytics",
    "gateway", "profiles", "inventory", "pricing", "shipping", "audit", "export",
]
SUB_WORDS = ["unit", "api", "models", "storage", "views", "cli", "workers", "utils",
             "regression", "contract"]
SUBSUB_WORDS = ["v1", "v2", "edge_cases", "slow_paths", "compat"]

MARKERS = {
    "slow": "takes more than a second",
    "integration": "talks to real services",
    "e2e": "end to end",
    "smoke": "quick sanity checks",
    "network": "needs network access",
    "db": "needs a database",
    "gpu": "needs a GPU",
    "timeout": "per-test timeout in seconds",
    "requires": "requires(resource, **limits)",
    "flaky": "flaky(reruns=N)",
    "owner": "owning team",
    "serial": "must not run in parallel",
}

INTS = [0, 1, 2, 3, -1, 7, 42, 100, 255, 1024, -17, 65536]
STRS = ["alpha", "beta", "gamma", "delta", "hello world", "a-b", "x.y", "UPPER",
        "snake_case", "path/to/file", "key=value", "0x1f", "with space", "CamelCase"]
RARE_STRS = ["ünïcode", "tab\\there", "line\\nbreak", "naïve", "日本"]
FLOATS = ["0.0", "0.5", "1.5", "-2.25", "3.14", "1e-3", "2.5e6", "1e20", "0.1", "100.0"]
SPECIALS = ["None", "True", "False"]
BYTES = ['b"raw"', 'b"\\x00\\xff"', 'b"abc"']
IDS = ["small", "medium", "large", "edge", "happy-path", "sad_path", "case-1",
       "case-2", "boundary", "overflow", "legacy", "fast"]


def py_str(s: str) -> str:
    """A double-quoted Python literal for s (s may contain \\t-style escapes)."""
    return '"' + s.replace('"', '\\"') + '"'


@dataclass
class Dir:
    rel: Path            # relative to OUT_DIR
    area: "Area"
    depth: int           # 0 = area root
    is_pkg: bool
    fixtures: dict = field(default_factory=dict)   # name -> number of params (0 = none)


@dataclass
class Area:
    name: str
    is_pkg: bool
    support_module: str | None = None               # plain areas: support_<area>.py
    mixins: list = field(default_factory=list)      # (name, n_tests, unittest_safe)


ROOT_FIXTURES = {
    # name: n_params (what a test using it multiplies by)
    "db_backend": 2, "workers": 3, "mode": 2, "api_version": 2, "client": 2,
    "settings": 0, "sample_data": 0, "tmp_workspace": 0,
}

ROOT_CONFTEST = '''\
"""Root fixtures shared by every area."""

import pytest


@pytest.fixture
def settings():
    return {"debug": False, "retries": 3}


@pytest.fixture
def sample_data():
    return list(range(10))


@pytest.fixture
def tmp_workspace(tmp_path):
    (tmp_path / "in").mkdir()
    return tmp_path


@pytest.fixture(params=["sqlite", "postgres"])
def db_backend(request):
    return request.param


@pytest.fixture(params=[1, 2, 4], ids=["one", "two", "four"])
def workers(request):
    return request.param


@pytest.fixture(params=[pytest.param("fast", id="fast-mode"),
                        pytest.param("thorough", marks=pytest.mark.slow)])
def mode(request):
    return request.param


@pytest.fixture(scope="module", params=["v1", "v2"])
def api_version(request):
    return request.param


@pytest.fixture
def client(db_backend, settings):
    return {"backend": db_backend, **settings}


@pytest.fixture(autouse=True)
def _no_network(monkeypatch):
    monkeypatch.setenv("NO_NETWORK", "1")
'''

TESTKIT_MIXINS = '''\
"""Shared mixins: test methods inherited by test classes all over the suite."""

import pytest


class CrudMixin:
    resource = "thing"

    def test_create(self):
        assert self.resource

    def test_read(self):
        assert self.resource

    def test_update(self):
        assert self.resource

    def test_delete(self):
        assert self.resource


class PagingMixin:
    page_size = 10

    def test_first_page(self):
        assert self.page_size > 0

    @pytest.mark.parametrize("page", [1, 2, 3])
    def test_page_bounds(self, page):
        assert page * self.page_size > 0


@pytest.mark.db
class TransactionalMixin:
    def test_commit(self):
        pass

    def test_rollback(self):
        pass


class AuditedCrudMixin(CrudMixin):
    def test_audit_trail(self):
        pass


class SerializationChecks:
    """unittest-safe: plain methods only."""

    def test_to_dict(self):
        pass

    def test_from_dict(self):
        pass

    def test_roundtrip(self):
        pass
'''
# name -> (n_tests, unittest_safe)
TESTKIT_MIXIN_INFO = {
    "CrudMixin": (4, True), "PagingMixin": (4, False), "TransactionalMixin": (2, True),
    "AuditedCrudMixin": (5, True), "SerializationChecks": (3, True),
}

TESTKIT_BASES = '''\
"""Base classes shared by test modules."""

import unittest


class ServiceCase(unittest.TestCase):
    """Not collected by name alone: it has no test methods of its own."""

    service = "generic"

    def setUp(self):
        self.state = {"service": self.service}

    def assertHealthy(self):
        self.assertIn("service", self.state)


class Widget:
    def __init__(self, name="w"):
        self.name = name
'''


class Gen:
    def __init__(self, out: Path, n_files: int, seed: int):
        self.out = out
        self.n_files = n_files
        self.rng = random.Random(seed)
        self.files: dict[Path, str] = {}
        self.file_index = 0
        self.expected_tests = 0
        self.used_basenames: set[str] = set()

    # ------------------------------------------------------------------ layout
    def write(self, rel: Path | str, text: str) -> None:
        self.files[Path(rel)] = text

    def build(self) -> None:
        r = self.rng
        self.write("pyproject.toml", self.pyproject())
        self.write("testkit/__init__.py", '"""Shared test helpers."""\n')
        self.write("testkit/mixins.py", TESTKIT_MIXINS)
        self.write("testkit/bases.py", TESTKIT_BASES)
        self.write("tests/conftest.py", ROOT_CONFTEST)
        self.write("tests/data/sample.json", '{"items": [1, 2, 3]}\n')
        self.write("tests/data/README.txt", "fixture data, not tests\n")

        n_areas = max(2, self.n_files // 50)
        dirs: list[Dir] = []
        for i in range(n_areas):
            area = Area(f"{AREA_WORDS[i % len(AREA_WORDS)]}_{i:03d}", r.random() < 0.6)
            dirs.extend(self.make_area(area))
        weights = [3 if d.depth == 0 else 2 if d.depth == 1 else 1 for d in dirs]
        assignment = r.choices(range(len(dirs)), weights=weights, k=self.n_files)
        for di in assignment:
            self.write_test_module(dirs[di])

    def pyproject(self) -> str:
        markers = "\n".join(f'    "{k}: {v}",' for k, v in MARKERS.items())
        return (
            '[project]\nname = "synthetic-suite"\nversion = "0.0.0"\n\n'
            "[tool.pytest.ini_options]\n"
            'testpaths = ["tests"]\n'
            'pythonpath = ["."]\n'
            'addopts = "--strict-markers"\n'
            f"markers = [\n{markers}\n]\n"
        )

    def make_area(self, area: Area) -> list[Dir]:
        r = self.rng
        root = Path("tests") / area.name
        fixtures = dict(ROOT_FIXTURES)
        # Area mixins (in helpers.py or support_<area>.py).
        mixin_lines = ['"""Mixins for the %s area."""\n' % area.name, "import pytest\n\n"]
        for k in range(r.randint(1, 3)):
            name = f"{area.name.split('_')[0].capitalize()}{k}Mixin"
            n_methods = r.randint(1, 4)
            safe = r.random() < 0.5
            body = [f"class {name}:\n", f"    label = {py_str(area.name)}\n\n"]
            n_tests = 0
            for m in range(n_methods):
                if not safe and r.random() < 0.4:
                    vals = r.sample(INTS, 2)
                    body.append(f"    @pytest.mark.parametrize(\"value\", {vals!r})\n")
                    body.append(f"    def test_{area.name.split('_')[0]}_{k}_{m}(self, value):\n"
                                "        assert self.label\n\n")
                    n_tests += 2
                else:
                    body.append(f"    def test_{area.name.split('_')[0]}_{k}_{m}(self):\n"
                                "        assert self.label\n\n")
                    n_tests += 1
            body.append(f"    def helper_{k}(self):\n        return self.label\n\n\n")
            mixin_lines.extend(body)
            area.mixins.append((name, n_tests, safe))
        mixin_text = "".join(mixin_lines).rstrip() + "\n"

        dirs = []
        area_dir = Dir(root, area, 0, area.is_pkg, fixtures)
        if area.is_pkg:
            self.write(root / "__init__.py", "")
            self.write(root / "helpers.py", mixin_text)
        else:
            area.support_module = f"support_{area.name}"
            self.write(root / f"{area.support_module}.py", mixin_text)
        if r.random() < 0.5:
            fixtures = self.write_conftest(area_dir, top=True)
            area_dir.fixtures = fixtures
        dirs.append(area_dir)

        for sub in r.sample(SUB_WORDS, r.randint(0, 3)):
            sdir = Dir(root / sub, area, 1, area.is_pkg, dict(area_dir.fixtures))
            if area.is_pkg:
                self.write(sdir.rel / "__init__.py", "")
            if r.random() < 0.25:
                sdir.fixtures = self.write_conftest(sdir, top=False)
            dirs.append(sdir)
            for subsub in r.sample(SUBSUB_WORDS, r.choice([0, 0, 1, 2])):
                ssdir = Dir(sdir.rel / subsub, area, 2, area.is_pkg, dict(sdir.fixtures))
                if area.is_pkg:
                    self.write(ssdir.rel / "__init__.py", "")
                dirs.append(ssdir)
        return dirs

    def write_conftest(self, d: Dir, top: bool) -> dict:
        r = self.rng
        fx = dict(d.fixtures)
        tag = d.area.name if top else f"{d.area.name}_{d.rel.name}"
        parts = ['"""Fixtures for %s."""\n\n' % d.rel.as_posix(), "import pytest\n\n\n"]
        res = f"{tag}_resource"
        kind = r.choice(["ints", "floats", "specials", "strs"])
        if kind == "ints":
            vals = r.sample(INTS, r.randint(2, 3))
            params = repr(vals)
        elif kind == "floats":
            vals = r.sample(FLOATS, 2)
            params = "[" + ", ".join(vals) + "]"
        elif kind == "specials":
            vals = r.sample(SPECIALS, 2)
            params = "[" + ", ".join(vals) + "]"
        else:
            vals = r.sample(STRS, 2)
            params = "[" + ", ".join(py_str(v) for v in vals) + "]"
        parts.append(f"@pytest.fixture(params={params})\ndef {res}(request):\n"
                     "    return request.param\n\n\n")
        fx[res] = len(vals)
        if r.random() < 0.4:
            # Override the root db_backend: one param, or not parametrized at all.
            if r.random() < 0.5:
                parts.append('@pytest.fixture(params=["memory"])\ndef db_backend(request):\n'
                             "    return request.param\n\n\n")
                fx["db_backend"] = 1
            else:
                parts.append("@pytest.fixture\ndef db_backend():\n    return \"memory\"\n\n\n")
                fx["db_backend"] = 0
            fx["client"] = fx["db_backend"]
        if not top and r.random() < 0.5:
            parts.append("@pytest.fixture\ndef workers():\n    return 1\n\n\n")
            fx["workers"] = 0
        if r.random() < 0.3:
            parts.append("@pytest.fixture(autouse=True)\ndef _area_env(monkeypatch):\n"
                         f"    monkeypatch.setenv(\"AREA\", {py_str(tag)})\n\n\n")
        self.write(d.rel / "conftest.py", "".join(parts).rstrip() + "\n")
        return fx

    # ------------------------------------------------------------ test modules
    def module_name(self) -> str:
        r = self.rng
        self.file_index += 1
        word = r.choice(SUBJECTS)
        if r.random() < 0.1:
            return f"{word}_{self.file_index:05d}_test"
        return f"test_{word}_{self.file_index:05d}"

    def write_test_module(self, d: Dir) -> None:
        m = Module(self, d)
        text, n = m.render()
        base = self.module_name()
        self.write(d.rel / f"{base}.py", text)
        self.expected_tests += n

    def flush(self) -> None:
        for rel in sorted(self.files):
            p = self.out / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(self.files[rel], encoding="utf-8")


class Module:
    """One test module; render() returns (source, approximate test count)."""

    def __init__(self, gen: Gen, d: Dir):
        self.g = gen
        self.r = gen.rng
        self.d = d
        self.imports: set[str] = {"import pytest"}
        self.from_pytest = self.r.random() < 0.12   # `from pytest import mark, param`
        self.names: set[str] = set()
        self.blocks: list[str] = []
        self.constants: list[str] = []
        self.module_fixtures: dict[str, int] = {}
        self.count = 0

    # helpers -----------------------------------------------------------------
    @property
    def mark(self) -> str:
        return "mark" if self.from_pytest else "pytest.mark"

    @property
    def param(self) -> str:
        return "param" if self.from_pytest else "pytest.param"

    def fname(self, prefix: str = "test") -> str:
        r = self.r
        for _ in range(50):
            name = f"{prefix}_{r.choice(SUBJECTS)}_{r.choice(SCENARIOS)}_{r.choice(EXPECTED)}"
            if name not in self.names:
                break
        else:
            name = f"{prefix}_{len(self.names)}"
        if name in self.names:
            name = f"{name}_{len(self.names)}"
        self.names.add(name)
        return name

    def cname(self, prefix: str = "Test") -> str:
        r = self.r
        base = f"{prefix}{r.choice(SUBJECTS).capitalize()}{r.choice(SCENARIOS).capitalize()}"
        name = base
        i = 2
        while name in self.names:
            name = f"{base}{i}"
            i += 1
        self.names.add(name)
        return name

    def marker_decorator(self) -> str:
        r = self.r
        m = self.mark
        choice = r.randrange(12)
        if choice == 0:
            return f"@{m}.slow"
        if choice == 1:
            return f"@{m}.timeout({r.choice([5, 10, 30, 120])})"
        if choice == 2:
            return f'@{m}.requires("gpu", vram_gb={r.choice([8, 16, 24, 80])})'
        if choice == 3:
            return f"@{m}.flaky(reruns={r.randint(1, 3)}, reruns_delay=0.5)"
        if choice == 4:
            return f'@{m}.owner("team-{r.choice(AREA_WORDS)}")'
        if choice == 5:
            self.imports.add("import sys")
            return f'@{m}.skipif(sys.platform == "win32", reason="posix only")'
        if choice == 6:
            return f'@{m}.xfail(reason="bug #{r.randint(100, 999)}", strict=False)'
        if choice == 7:
            return f'@{m}.filterwarnings("ignore::DeprecationWarning")'
        if choice == 8:
            return f"@{m}.{r.choice(['network', 'db', 'gpu', 'serial', 'smoke'])}"
        if choice == 9:
            self.imports.add("import sys")
            return f'@{m}.skipif(sys.version_info < (3, 8), reason="needs 3.8")'
        if choice == 10:
            return f'@{m}.requires("service", name="redis", port={r.choice([6379, 6380])})'
        return f"@{m}.integration"

    def maybe_markers(self, p: float = 0.3) -> list[str]:
        out = []
        while self.r.random() < p and len(out) < 3:
            out.append(self.marker_decorator())
        return out

    # parametrize ---------------------------------------------------------------
    def values(self, n: int) -> list[str]:
        """n literal source snippets of one flavour."""
        r = self.r
        kind = r.choices(["int", "str", "float", "special", "mixed", "bytes", "rare"],
                         weights=[30, 30, 15, 8, 12, 2, 3])[0]
        if kind == "int":
            return [repr(v) for v in r.sample(INTS, n)]
        if kind == "str":
            return [py_str(v) for v in r.sample(STRS, n)]
        if kind == "float":
            return r.sample(FLOATS, n)
        if kind == "special":
            return [r.choice(SPECIALS) for _ in range(n)]  # duplicates -> suffixes
        if kind == "bytes":
            return [r.choice(BYTES) for _ in range(n)]
        if kind == "rare":
            return [py_str(r.choice(RARE_STRS)) for _ in range(n)]
        pool = ([repr(v) for v in INTS] + [py_str(v) for v in STRS] + FLOATS + SPECIALS
                + ["[1, 2]", '{"k": 1}', "(3, 4)"])
        return [r.choice(pool) for _ in range(n)]

    def parametrize(self, argnames: list[str]) -> tuple[str, int]:
        """One @parametrize decorator for argnames; returns (line, n_sets)."""
        r = self.r
        n = r.randint(2, 5)
        k = len(argnames)
        if k == 1:
            names_src = py_str(argnames[0])
        else:
            style = r.randrange(4)
            if style == 0:
                names_src = py_str(",".join(argnames))
            elif style == 1:
                names_src = py_str(", ".join(argnames))
            elif style == 2:
                names_src = "[" + ", ".join(py_str(a) for a in argnames) + "]"
            else:
                names_src = "(" + ", ".join(py_str(a) for a in argnames) + ",)"
        columns = [self.values(n) for _ in range(k)]
        rows = [[col[i] for col in columns] for i in range(n)]

        def row_src(row):
            return row[0] if k == 1 else "(" + ", ".join(row) + ")"

        kwargs = ""
        entries = []
        style = r.choices(["plain", "param", "ids", "const", "range", "callable"],
                          weights=[45, 22, 15, 12, 3, 1])[0]
        if style == "range" and k == 1:
            return f"@{self.mark}.parametrize({names_src}, range({n}))", n
        if style == "callable":
            kwargs = r.choice([", ids=str", ", ids=lambda v: f\"v{v!r}\""])
            entries = [row_src(row) for row in rows]
        elif style == "param":
            for i, row in enumerate(rows):
                extras = []
                roll = r.random()
                if roll < 0.35:
                    extras.append(f"id={py_str(r.choice(IDS) + '-' + str(i))}")
                elif roll < 0.55:
                    extras.append(f"marks={self.mark}.slow")
                elif roll < 0.65:
                    extras.append(f'marks=[{self.mark}.xfail(reason="known"), {self.mark}.network]')
                    if r.random() < 0.5:
                        extras.append(f"id={py_str('known-' + str(i))}")
                elif roll < 0.7:
                    extras.append(f'marks={self.mark}.skip(reason="not yet")')
                if extras or r.random() < 0.5:
                    entries.append(f"{self.param}({', '.join(row + extras)})")
                else:
                    entries.append(row_src(row))
        elif style == "ids":
            ids = r.sample(IDS, n)
            if r.random() < 0.1:
                ids[r.randrange(n)] = None
            kwargs = ", ids=[" + ", ".join("None" if i is None else py_str(i) for i in ids) + "]"
            entries = [row_src(row) for row in rows]
        else:
            entries = [row_src(row) for row in rows]
        if style == "const":
            const = f"CASES_{len(self.constants)}"
            self.constants.append(f"{const} = [\n" + "".join(f"    {e},\n" for e in entries) + "]\n")
            return f"@{self.mark}.parametrize({names_src}, {const})", n
        if r.random() < 0.3 and len(", ".join(entries)) > 50:
            body = "[\n" + "".join(f"        {e},\n" for e in entries) + "    ]"
            return f"@{self.mark}.parametrize(\n    {names_src},\n    {body}{kwargs},\n)", n
        return f"@{self.mark}.parametrize({names_src}, [{', '.join(entries)}]{kwargs})", n

    def param_fixture_args(self) -> tuple[list[str], int]:
        """Maybe use some visible fixtures; returns (names, multiplicity)."""
        r = self.r
        fx = dict(self.d.fixtures)
        fx.update(self.module_fixtures)
        mult = 1
        names = []
        if r.random() < 0.3:
            for name in r.sample(sorted(fx), r.randint(1, 2)):
                names.append(name)
        # `client` depends on db_backend: don't count both.
        if "client" in names and "db_backend" in names:
            names.remove("db_backend")
        for name in names:
            mult *= max(1, fx[name])
        if r.random() < 0.15:
            names.append(r.choice(["tmp_path", "monkeypatch", "capsys", "request"]))
        return names, mult

    # units -------------------------------------------------------------------
    def function(self, indent: str = "", method: bool = False,
                 class_args: list[str] | None = None) -> tuple[str, int]:
        r = self.r
        lines = []
        decorators = self.maybe_markers(0.25)
        args: list[str] = list(class_args or [])
        n = 1
        roll = r.random()
        if roll < 0.35:
            stacked = 1 if r.random() < 0.8 else 2
            for s in range(stacked):
                k = 1 if r.random() < 0.65 else r.randint(2, 3)
                an = [f"{w}{s or ''}" for w in r.sample(["value", "expected", "name", "size",
                                                         "payload", "flag", "ratio"], k)]
                dec, cnt = self.parametrize(an)
                decorators.append(dec)
                args.extend(an)
                n *= cnt
        elif roll < 0.40 and "db_backend" in self.d.fixtures:
            # indirect parametrization overrides the fixture's own params
            vals = r.sample(["mysql", "oracle", "duckdb"], r.randint(1, 2))
            decorators.append(f"@{self.mark}.parametrize(\"db_backend\", {vals!r}, indirect=True)")
            args.append("db_backend")
            n *= len(vals)
        elif roll < 0.44:
            fx = r.choice(["mode", "workers"])
            decorators.append(f"@{self.mark}.usefixtures({py_str(fx)})")
            n *= max(1, self.d.fixtures.get(fx, 0))
        fargs, mult = self.param_fixture_args()
        if n * mult > 16:
            fargs, mult = [], 1
        for a in fargs:
            if a not in args:
                args.append(a)
        n *= mult
        is_async = r.random() < 0.08
        name = self.fname()
        if is_async:
            self.imports.add("import asyncio")
        sig = (["self"] if method else []) + args
        for dec in decorators:
            lines.extend(indent + ln for ln in dec.split("\n"))
        lines.append(f"{indent}{'async ' if is_async else ''}def {name}({', '.join(sig)}):")
        body = r.choice([
            ["result = len(str({0}))", "assert result >= 0"],
            ["data = {{'k': 1}}", "assert data['k'] == 1"],
            ['"""Docstring describing the scenario."""', "assert True"],
            ["items = [1, 2, 3]", "assert sum(items) == 6"],
        ])
        if is_async:
            body = ["await asyncio.sleep(0)"] + body[-1:]
        arg0 = args[0] if args else "None"
        for b in body:
            lines.append(f"{indent}    " + b.format(arg0))
        return "\n".join(lines) + "\n", n

    def unit_functions(self) -> int:
        src, n = self.function()
        self.blocks.append(src)
        return n

    def unit_class(self) -> int:
        r = self.r
        lines = []
        decorators = self.maybe_markers(0.2)
        class_args: list[str] = []
        n_mult = 1
        if r.random() < 0.1:
            dec, cnt = self.parametrize(["backend_name"])
            decorators.append(dec)
            class_args = ["backend_name"]
            n_mult = cnt
        bases: list[str] = []
        n = 0
        roll = r.random()
        if roll < 0.45 and not class_args:
            bases, n = self.pick_mixins(unittest_only=False)
        name = self.cname()
        lines.extend(decorators)
        lines.append(f"class {name}{'(' + ', '.join(bases) + ')' if bases else ''}:")
        if r.random() < 0.3:
            lines.append(f'    """Tests for {name[4:].lower()}."""')
            lines.append("")
        if r.random() < 0.15:
            marks = ", ".join(self.marker_decorator()[1:] for _ in range(r.randint(1, 2)))
            lines.append(f"    pytestmark = [{marks}]")
            lines.append("")
        if r.random() < 0.2:
            lines.append("    @pytest.fixture(autouse=True)")
            lines.append("    def _setup(self):")
            lines.append("        self.ready = True")
            lines.append("")
        for _ in range(r.randint(1, 4)):
            src, k = self.function(indent="    ", method=True, class_args=class_args)
            lines.append(src)
            n += k
        if r.random() < 0.2:
            lines.append("    def helper(self, x):\n        return x * 2\n")
        if r.random() < 0.06:
            inner = self.cname()
            lines.append(f"    class {inner}:")
            src, k = self.function(indent="        ", method=True, class_args=class_args)
            lines.append(src)
            n += k
        self.blocks.append("\n".join(lines).rstrip() + "\n")
        return n * n_mult

    def pick_mixins(self, unittest_only: bool) -> tuple[list[str], int]:
        r = self.r
        pool = []  # (expr, n_tests)
        for name, (k, safe) in TESTKIT_MIXIN_INFO.items():
            if safe or not unittest_only:
                pool.append(("testkit", name, k))
        area_ok = self.d.is_pkg or self.d.depth == 0
        for name, k, safe in self.d.area.mixins:
            if area_ok and (safe or not unittest_only):
                pool.append(("area", name, k))
        chosen = r.sample(pool, min(len(pool), r.randint(1, 2)))
        if any(c[1] == "AuditedCrudMixin" for c in chosen):
            chosen = [c for c in chosen if c[1] != "CrudMixin"]
        bases = []
        n = 0
        for src, name, k in chosen:
            n += k
            bases.append(name)
            if src == "testkit":
                self.imports.add(f"from testkit.mixins import {name}")
            else:
                self.imports.add(self.area_import(name))
        return bases, n

    def area_import(self, name: str) -> str:
        d = self.d
        if not d.is_pkg:
            return f"from {d.area.support_module} import {name}"
        if self.r.random() < 0.5:
            return f"from {'.' * (d.depth + 1)}helpers import {name}"
        return f"from {d.area.name}.helpers import {name}"

    def unit_inheritance(self) -> int:
        """In-module base class shared by two or three Test classes."""
        r = self.r
        base = self.cname(prefix="_Base")
        lines = [f"class {base}:", "    kind = None", ""]
        n_base = 0
        for _ in range(r.randint(1, 3)):
            src, k = self.function(indent="    ", method=True)
            lines.append(src)
            n_base += k
        n = 0
        for _ in range(r.randint(2, 3)):
            child = self.cname()
            lines.append("")
            lines.append(f"class {child}({base}):")
            lines.append(f"    kind = {py_str(child[4:].lower())}")
            n += n_base
            if r.random() < 0.4:
                lines.append("")
                src, k = self.function(indent="    ", method=True)
                lines.append(src)
                n += k
        if r.random() < 0.3:
            # A Test class inheriting from another Test class: both collected.
            parent = child
            grandchild = self.cname()
            lines.append("")
            lines.append(f"class {grandchild}({parent}):")
            src, k = self.function(indent="    ", method=True)
            lines.append(src)
            n += n_base + k
        self.blocks.append("\n".join(lines).rstrip() + "\n")
        return n

    def unit_unittest(self) -> int:
        r = self.r
        self.imports.add("import unittest")
        bases = ["unittest.TestCase"]
        n = 0
        if r.random() < 0.35:
            mixins, n = self.pick_mixins(unittest_only=True)
            bases = mixins + bases
        elif r.random() < 0.2:
            self.imports.add("from testkit.bases import ServiceCase")
            bases = ["ServiceCase"]
        # Some TestCase subclasses are not named Test*: pytest collects them anyway.
        name = self.cname(prefix="Test") if r.random() < 0.8 else self.cname(prefix="Legacy") + "Case"
        lines = []
        if r.random() < 0.15:
            lines.append(self.marker_decorator())
        lines.append(f"class {name}({', '.join(bases)}):")
        if r.random() < 0.5:
            lines.append("    def setUp(self):")
            lines.append("        self.value = 41")
            lines.append("")
        for i in range(r.randint(1, 4)):
            method = self.fname() if r.random() < 0.9 else f"test{r.choice(SUBJECTS).capitalize()}{i}"
            if r.random() < 0.1:
                lines.append(f"    {self.marker_decorator()}")
            lines.append(f"    def {method}(self):")
            lines.append("        self.assertTrue(True)")
            lines.append("")
            n += 1
        if r.random() < 0.3:
            lines.append("    def tearDown(self):")
            lines.append("        pass")
        self.blocks.append("\n".join(lines).rstrip() + "\n")
        return n

    def unit_module_fixture(self) -> int:
        r = self.r
        name = f"{r.choice(['color', 'shape', 'locale', 'codec', 'region'])}_{len(self.module_fixtures)}"
        vals = self.values(r.randint(2, 3))
        ids = ""
        if r.random() < 0.3:
            ids = ", ids=[" + ", ".join(py_str(f"{name}-{i}") for i in range(len(vals))) + "]"
        scope = ', scope="module"' if r.random() < 0.2 else ""
        self.blocks.append(f"@pytest.fixture(params=[{', '.join(vals)}]{ids}{scope})\n"
                           f"def {name}(request):\n    return request.param\n")
        self.module_fixtures[name] = len(vals)
        fn = self.fname()
        self.blocks.append(f"def {fn}({name}):\n    assert {name} is not NotImplemented\n")
        return len(vals)

    def unit_noise(self) -> int:
        r = self.r
        choice = r.randrange(4)
        if choice == 0:
            self.blocks.append(f"def make_{r.choice(SUBJECTS)}_{len(self.blocks)}(**kw):\n"
                               "    return dict(kw)\n")
        elif choice == 1:
            self.blocks.append(f"class {r.choice(SUBJECTS).capitalize()}Factory{len(self.blocks)}:\n"
                               "    def build(self):\n        return object()\n")
        elif choice == 2:
            # A Test-named helper class that pytest must skip (__test__ = False).
            name = self.cname(prefix="Test") + "Data"
            self.blocks.append(f"class {name}:\n    __test__ = False\n\n"
                               "    def test_not_collected(self):\n        pass\n")
        else:
            self.blocks.append(f"DEFAULT_TIMEOUT_{len(self.blocks)} = {r.choice([1, 5, 30])}\n")
        return 0

    def render(self) -> tuple[str, int]:
        r = self.r
        target = r.randint(1, 7)
        if r.random() < 0.004:
            return '"""Placeholder module: no tests yet."""\n', 0
        units = [self.unit_functions, self.unit_class, self.unit_inheritance,
                 self.unit_unittest, self.unit_module_fixture, self.unit_noise]
        weights = [50, 22, 5, 8, 5, 10]
        while self.count < target:
            unit = r.choices(units, weights=weights)[0]
            self.count += unit()
        pytestmark = None
        if r.random() < 0.2:
            pytestmark = f"pytestmark = {self.mark}.{r.choice(['integration', 'smoke', 'db'])}\n"
        elif r.random() < 0.15:
            ms = ", ".join(self.marker_decorator()[1:] for _ in range(r.randint(1, 3)))
            pytestmark = f"pytestmark = [{ms}]\n"
        header = []
        if r.random() < 0.5:
            header.append(f'"""Tests for {r.choice(SUBJECTS)} handling."""\n')
        std = sorted(i for i in self.imports if i.startswith("import ") and i != "import pytest")
        third = ["import pytest"]
        if self.from_pytest:
            third.append("from pytest import mark, param")
        local = sorted(i for i in self.imports if i.startswith("from "))
        header.append("\n".join(std + ([""] if std else []) + third
                                + ([""] + local if local else [])) + "\n")
        if pytestmark:
            header.append(pytestmark)
        header.extend(self.constants)
        text = "\n\n".join(h.rstrip("\n") + "\n" for h in header)
        text += "\n\n" + "\n\n".join(b.rstrip("\n") + "\n" for b in self.blocks)
        if "import unittest" in self.imports and r.random() < 0.3:
            text += '\n\nif __name__ == "__main__":\n    unittest.main()\n'
        return text, self.count


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--files", type=int, default=10000, help="number of test modules")
    ap.add_argument("--seed", type=int, default=1234)
    args = ap.parse_args(argv)
    if args.out.exists() and any(args.out.iterdir()):
        print(f"error: {args.out} exists and is not empty", file=sys.stderr)
        return 2
    g = Gen(args.out, args.files, args.seed)
    g.build()
    g.flush()
    n_py = sum(1 for p in g.files if p.suffix == ".py")
    print(f"wrote {len(g.files)} files ({args.files} test modules, {n_py} .py) to {args.out}; "
          f"~{g.expected_tests} tests (approximate)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
