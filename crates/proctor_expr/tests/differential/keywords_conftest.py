"""Records, for every collected item, the names of pytest's `-k` matcher and
what they are made of, before pytest deselects anything."""

import json
import os

import pytest
from _pytest.mark import KeywordMatcher


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    for item in items:
        if "extra" in item.name:
            item.extra_keyword_matches.add("Extra_Keyword")
            item.parent.extra_keyword_matches.add("_parent_extra")
    with open(os.environ["PROCTOR_KEYWORDS_OUT"], "w", encoding="utf-8") as out:
        for item in items:
            function = getattr(item, "function", None)
            record = {
                "nodeid": item.nodeid,
                "names": sorted(KeywordMatcher.from_item(item)._names),
                "markers": [[mark.name, mark.kwargs] for mark in item.iter_markers()],
                "function_attributes": list(function.__dict__) if function else [],
                "extra": sorted(item.listextrakeywords()),
            }
            out.write(json.dumps(record, default=repr) + "\n")
