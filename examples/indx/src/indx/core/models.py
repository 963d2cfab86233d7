"""The data model every stage shares (the dependency-light core)."""

import json

SCHEMA_VERSION = 2


class Chunk:
    def __init__(self, id, text):
        self.id = id
        self.text = text

    def to_json(self):
        return json.dumps({"text": self.text, "id": self.id}, sort_keys=True)


class Space:
    def __init__(self, name, schema_version=SCHEMA_VERSION):
        if not name:
            raise ValueError("a space needs a name")
        self.name = name
        self.schema_version = schema_version
