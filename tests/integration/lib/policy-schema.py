#!/usr/bin/python3
# policy-schema.py SCHEMA: validates each document of the JSON array on stdin
# against the policy schema with Debian's python3-jsonschema (run it with
# /usr/bin/python3, not another Python's packages); prints a JSON array with,
# per document, null when valid, else "path: message" of the best error.
import json
import sys

import jsonschema

with open(sys.argv[1], encoding="utf-8") as f:
    schema = json.load(f)
cls = jsonschema.validators.validator_for(schema)
if cls is not jsonschema.Draft202012Validator:
    sys.exit(f"policy-schema: {sys.argv[1]}: not a draft 2020-12 schema ({cls.__name__})")
cls.check_schema(schema)
validator = cls(schema)
out = []
for doc in json.load(sys.stdin):
    err = jsonschema.exceptions.best_match(validator.iter_errors(doc))
    out.append(None if err is None else
               "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path)
               + ": " + err.message)
print(json.dumps(out))
