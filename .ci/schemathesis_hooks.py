"""Schemathesis hooks for .ci/run: the NDJSON form of the ruleset endpoints.

openapi.yaml gives an `application/x-ndjson` request the schema of the JSON form's
request, because it is the same request written as lines (streaming.md): a head line
with every member but the sequence, then one line per element of `events` (`runs`).
This serializer writes a generated request so. Only schema-valid requests are sent in
this form: by design a bad element line is answered in-band (`200`, a problem line,
the trailer `Oracle-Verdict: invalid`), which negative_data_rejection would count as
accepting bad data. The form's bad input is tested by NDJSONCheckTests and
NDJSONEndToEndTests; the JSON form still gets every check.
"""
import json

import schemathesis

SEQUENCES = ("events", "runs")
NDJSON = "application/x-ndjson"


@schemathesis.serializer(NDJSON)
def ndjson_lines(ctx, value):
    lines = []
    if isinstance(value, dict):
        lines.append(json.dumps({k: v for k, v in value.items() if k not in SEQUENCES}))
        for name in SEQUENCES:
            if isinstance(value.get(name), list):
                lines += [json.dumps(element) for element in value[name]]
    else:
        lines.append(json.dumps(value))
    return ("\n".join(lines) + "\n").encode()


@schemathesis.hook
def filter_case(ctx, case):
    if case.media_type != NDJSON or case.meta is None:
        return True
    return case.meta.generation.mode == "positive"
