"""The .indx writer: byte-stable JSON."""

import json


def dumps(space, chunks):
    return json.dumps({"schema_version": space.schema_version, "space": space.name, "chunks": [c.to_json() for c in chunks]}, sort_keys=True, indent=1)
