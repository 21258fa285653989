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


def refused_by_design(case):
    """A schema-valid request the spec refuses by combining what the schema allows
    apart: `category` or `subsystem` without `from=oslog`, or `from=oslog` with a JSON
    body (oslog.md: 400 and 415); `steps=all|failing` with an NDJSON log whose
    `initial` is "unknown" (late-start.md: 400). Their tests are the unit and
    end-to-end tests of those forms."""
    query = case.query or {}
    oslog = query.get("from") == "oslog"
    if not oslog and ("category" in query or "subsystem" in query):
        return True
    if oslog and case.media_type != NDJSON:
        return True
    body = case.body if isinstance(case.body, dict) else {}
    return (case.media_type == NDJSON and body.get("initial") == "unknown"
            and query.get("steps", "all") in ("all", "failing"))


@schemathesis.hook
def filter_case(ctx, case):
    positive = case.meta is None or case.meta.generation.mode == "positive"
    if positive and refused_by_design(case):
        return False
    if case.media_type != NDJSON or case.meta is None:
        return True
    return positive
