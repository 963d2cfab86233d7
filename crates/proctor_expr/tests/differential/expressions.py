"""Evaluates expressions with pytest's own parser and matchers.

Reads {"cases": [{"expr", "marks": [[[name, kwargs], ...], ...],
"keywords": [[name, ...], ...]}]} as JSON on stdin and writes one result per
case as JSON on stdout: the parse error, or the identifiers and, for every
marker set and keyword set, the result and the matcher calls in order.
"""

import json
import sys

import pytest
from _pytest.config import UsageError
from _pytest.mark import KeywordMatcher
from _pytest.mark import MarkMatcher
from _pytest.mark.expression import Expression
from _pytest.mark.structures import Mark


def typed(value):
    if isinstance(value, bool):
        return ["bool", repr(value)]
    if isinstance(value, int):
        return ["int", str(value)]
    if value is None:
        return ["None", ""]
    return ["str", value]


def recording(matcher, calls):
    def record(name, /, **kwargs):
        calls.append([name, [[k, *typed(v)] for k, v in kwargs.items()] if kwargs else None])
        return matcher(name, **kwargs)

    return record


def evaluate(expr, matcher):
    calls = []
    try:
        result = expr.evaluate(recording(matcher, calls))
    except UsageError as e:
        result = "UsageError: " + str(e)
    return [result, calls]


def run(case):
    try:
        expr = Expression.compile(case["expr"])
    except SyntaxError as e:
        kind = "syntax" if e.text == case["expr"] else "compile" if e.text is None else "other"
        return {"error": {"kind": kind, "column": e.offset, "message": e.msg}}
    except (ValueError, RecursionError) as e:
        return {"error": {"kind": "crash", "exception": type(e).__name__, "message": str(e)}}
    marks = [
        evaluate(expr, MarkMatcher.from_markers(Mark(name, (), kwargs, _ispytest=True) for name, kwargs in markers))
        for markers in case["marks"]
    ]
    keywords = [evaluate(expr, KeywordMatcher(set(names))) for names in case["keywords"]]
    return {"idents": sorted(expr.idents()), "marks": marks, "keywords": keywords}


def main():
    cases = json.load(sys.stdin)["cases"]
    json.dump({"pytest": pytest.__version__, "results": [run(case) for case in cases]}, sys.stdout)


main()
