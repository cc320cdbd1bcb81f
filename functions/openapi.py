#!/usr/bin/env python3
"""Writes functions/openapi.yaml from the JSON schemas in functions/, or checks it.

The JSON schemas are the contracts (the golden examples and the Swift contract
test use them); the OpenAPI document is derived from them, never edited by hand,
so the two cannot drift:

    python3 functions/openapi.py          # rewrite functions/openapi.yaml
    python3 functions/openapi.py --check  # exit 1 when it is not what the schemas give

What the schemas do not hold (method, statuses, headers) is the table below, which
follows functions/README.md. Needs PyYAML (installed with schemathesis).
"""
import json
import pathlib
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent
TARGET = ROOT / "openapi.yaml"

# Every function: method, and the statuses it answers besides 200 and the common errors.
FUNCTIONS = [
    ("registerSubscription", "post", [409]),
    ("registerActivity", "post", [404]),
    ("triggerReplyFinished", "post", [202]),
    ("triggerEvent", "post", [202]),
    ("resolveEvent", "post", [404, 409]),
    ("decideEvent", "post", [403, 404, 409]),
    ("awaitDecision", "post", [404]),
    ("startPairing", "post", [404, 409]),
    ("completePairing", "post", [403, 404, 409]),
    ("awaitPairing", "post", [404]),
    ("pairings", "get", []),
    ("replies", "get", []),
    ("eventStatus", "post", [404]),
    ("receipts", "post", [403]),
    ("appState", "post", [404]),
    ("unregisterSubscription", "post", []),
    ("unregisterInstallation", "post", []),
    ("subscriptions", "get", []),
    ("heartbeat", "post", [409]),
    ("ping", "get", [404]),
    ("diagnostics", "get", []),
]
# Functions whose body may be left out (any JSON object is ignored).
OPTIONAL_BODY = {"heartbeat", "startPairing"}
# Functions that take an Idempotency-Key header.
IDEMPOTENT = {"triggerReplyFinished", "triggerEvent"}

ERROR_STATUSES = {
    400: "INVALID_ARGUMENT: bad JSON, not an object, invalid UTF-8, a field missing, of the wrong type or out of range (`field` names it).",
    401: "UNAUTHENTICATED: no Authorization, not `Bearer <secret>`, or a secret that is not 32–256 characters of the base64 or base64url alphabet; decideEvent: a signature that is not the installation's decision key's (reason bad_signature).",
    403: "PERMISSION_DENIED: decideEvent from an installation that was not sent the approval (reason not_a_recipient) or registered no decision_key (reason no_decision_key); completePairing from an installation with no decision_key (reason no_decision_key).",
    404: "NOT_FOUND: nothing is known by that id (resolveEvent, decideEvent, awaitDecision: the event_id; completePairing, awaitPairing: the pairing_id, unknown or expired, reason unknown_pairing; ping: no subscription was ever registered with the secret; startPairing: no device registered with it, reason unknown_server; registerActivity: the installation is not subscribed to the agent).",
    413: "PAYLOAD_TOO_LARGE: a body over 64 KiB.",
    409: "LIMIT_REACHED: a new device beyond PUSHGATE_MAX_DEVICES_PER_AGENT, or a new agent beyond PUSHGATE_MAX_AGENTS_PER_SERVER, or a new heartbeat source beyond 100 a server (`field` says which), a pairing beyond 10 open a server (startPairing) or 10 completions a pairing (completePairing); ABORTED (decideEvent, resolveEvent): an event is decided or resolved, never both, and the other came first (reason already_decided, with decision, decided_by and decided_at, or already_resolved, with resolution).",
    429: "RESOURCE_EXHAUSTED: a rate limit (per secret, per client address, new namespaces per address, health checks per address), a repeat still in progress, or (awaitDecision, awaitPairing) as many waits as PUSHGATE_MAX_WAITING_DECISIONS held for the server; `Retry-After` says when to try again.",
    500: "INTERNAL: a fault inside; the answer tells nothing more.",
    503: "UNAVAILABLE: the store does not answer.",
}


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def component(schema):
    """A JSON schema as an OpenAPI 3.1 schema object: without `$schema` and `$id`,
    which would change how references inside resolve."""
    return {key: value for key, value in schema.items() if key not in ("$schema", "$id")}


def ref(name):
    return {"$ref": f"#/components/schemas/{name}"}


def json_content(schema):
    return {"application/json": {"schema": schema}}


def error_response(status):
    return {"description": ERROR_STATUSES[status], "content": json_content(ref("Error"))}


def valid_examples(name):
    """The golden valid examples' requests, by file name: what the examples phase of
    a fuzzer sends first."""
    examples = {}
    for path in sorted((ROOT / name / "examples" / "valid").glob("*.json")):
        example = load(path)
        request = example["request"]
        if "raw_body" in request or "raw_body_base64" in request:
            continue
        value = request.get("query", {}) if request.get("method") == "GET" else request.get("body")
        if value is not None:
            examples[path.stem] = {"summary": example["description"], "value": value}
    return examples


def function_operation(name, method, extra_statuses, request_schema):
    operation = {
        "operationId": name,
        "summary": request_schema["title"],
        "description": request_schema["description"],
        "security": [{"pushSecret": []}],
    }
    parameters = []
    if name in IDEMPOTENT:
        parameters.append({
            "name": "Idempotency-Key",
            "in": "header",
            "required": False,
            "description": "A repeat within 24 h with the same key is answered as a duplicate, not sent again.",
            "schema": {"type": "string", "pattern": "^[\\x21-\\x7E]{1,255}$"},
        })
    examples = valid_examples(name)
    if method == "get":
        required = set(request_schema.get("required", []))
        for field, schema in request_schema.get("properties", {}).items():
            parameter = {"name": field, "in": "query", "required": field in required, "schema": schema}
            values = {key: {"value": e["value"][field]} for key, e in examples.items() if field in e["value"]}
            if values:
                parameter["examples"] = values
            parameters.append(parameter)
    else:
        content = json_content(ref(f"{name}Request"))
        if examples:
            content["application/json"]["examples"] = examples
        operation["requestBody"] = {"required": name not in OPTIONAL_BODY, "content": content}
    if parameters:
        operation["parameters"] = parameters
    answer = ref(f"{name}Answer")
    responses = {"200": {"description": "The answer.", "content": json_content(answer)}}
    if 202 in extra_statuses:
        responses["202"] = {
            "description": "Accepted before any try (`\"wait\": false`, or coalesced): every delivery pending.",
            "content": json_content(answer),
        }
    statuses = [400, 401] if method == "get" else [400, 401, 413]
    statuses += [s for s in extra_statuses if s in ERROR_STATUSES]
    # Every function is rate-limited.
    statuses += [429, 500, 503]
    for status in sorted(statuses):
        responses[str(status)] = error_response(status)
    operation["responses"] = responses
    return operation


def health_paths(operations):
    paths = {}
    for name, description in [
        ("healthz", "Liveness: 200 while the store answers (`degraded` when APNs refused the configuration), 503 when it does not."),
        ("readyz", "Readiness: 200 `ready` when the store takes a write, APNs accepts the configuration and the due backlog is under PUSHGATE_READY_MAX_BACKLOG; else 503 `not_ready` with each failing check."),
    ]:
        answer = ref(f"{name}Answer")
        ok = {"description": "The status.", "content": json_content(answer)}
        unavailable = (
            {"description": "Not ready: each failing check's reason.", "content": json_content(answer)}
            if name == "readyz" else error_response(503)
        )
        # Health checks have a per-address limit of their own (PUSHGATE_HEALTH_RATE_PER_ADDRESS).
        paths[f"/{name}"] = {
            "get": {
                "operationId": name, "summary": description,
                "responses": {"200": ok, "429": error_response(429), "503": unavailable},
            },
            "head": {
                "operationId": f"{name}Head",
                "summary": f"As GET /{name}, without the body.",
                "responses": {
                    "200": {"description": "As GET."}, "429": {"description": "As GET."},
                    "503": {"description": "As GET."},
                },
            },
        }
        operations[f"{name}Answer"] = component(load(ROOT / "operations" / f"{name}.answer.schema.json"))
    # Web Push's public key: served only when Web Push is configured, to anyone.
    paths["/webpush/vapid-public-key"] = {
        "get": {
            "operationId": "vapidPublicKey",
            "summary": "The VAPID public key browsers and UnifiedPush apps subscribe with (PUSHGATE_WEBPUSH_VAPID_KEY_PATH); 404 when Web Push is not configured.",
            "responses": {
                "200": {"description": "The key.", "content": json_content(ref("vapidPublicKeyAnswer"))},
                "404": error_response(404),
                "429": error_response(429),
            },
        }
    }
    operations["vapidPublicKeyAnswer"] = component(load(ROOT / "operations" / "vapidPublicKey.answer.schema.json"))
    paths["/metrics"] = {
        "get": {
            "operationId": "metrics",
            "summary": "Counters, histograms and store gauges in Prometheus's text format (not here when PUSHGATE_METRICS_PORT moves it to a port of its own).",
            "responses": {
                "200": {
                    "description": "Prometheus exposition format 0.0.4.",
                    "content": {"text/plain": {"schema": {"type": "string"}}},
                }
            },
        }
    }
    return paths


def document():
    schemas = {"Error": component(load(ROOT / "error.schema.json"))}
    paths = {}
    for name, method, extra in FUNCTIONS:
        request_schema = load(ROOT / name / "request.schema.json")
        if method != "get":
            schemas[f"{name}Request"] = component(request_schema)
        schemas[f"{name}Answer"] = component(load(ROOT / name / "answer.schema.json"))
        paths[f"/{name}"] = {method: function_operation(name, method, extra, request_schema)}
    paths.update(health_paths(schemas))
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Pushgate",
            "version": "1",
            "description": "The HTTP functions of Pushgate, a self-hosted push gateway, and its health and metrics endpoints. Generated by functions/openapi.py from the JSON schemas in functions/; do not edit.",
        },
        "servers": [{"url": "http://127.0.0.1:8080"}],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "pushSecret": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "The push secret shared by an agent server and its apps; its SHA-256 names the server's namespace.",
                }
            },
        },
    }


def render():
    header = "# Generated by functions/openapi.py from the JSON schemas in functions/; do not edit.\n"
    return header + yaml.safe_dump(document(), sort_keys=False, allow_unicode=True, width=120)


def main():
    text = render()
    if sys.argv[1:] == ["--check"]:
        if not TARGET.exists() or TARGET.read_text(encoding="utf-8") != text:
            print("functions/openapi.yaml is not what the schemas give: run python3 functions/openapi.py", file=sys.stderr)
            return 1
        print("functions/openapi.yaml matches the JSON schemas")
        return 0
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
