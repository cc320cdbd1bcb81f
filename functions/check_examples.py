#!/usr/bin/env python3
"""Checks every example in functions/ against the JSON schemas.

- a valid example's request body must match <function>/request.schema.json, and its
  answer body <function>/answer.schema.json;
- an invalid example's answer must match error.schema.json (with a stand-in
  message), and a 400 about the body (a body field, or none named) must be refused
  by the request schema too, so the schemas say what the gateway enforces.

Needs the `jsonschema` package (pip install jsonschema). Exits 1 on the first
kind of failure, printing every failing example.
"""
import json
import pathlib
import sys

from jsonschema import Draft202012Validator

ROOT = pathlib.Path(__file__).resolve().parent


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def without_required(schema, keys):
    """`schema` with `keys` taken out of every `required` list in it."""
    if isinstance(schema, dict):
        return {
            k: [r for r in v if r not in keys] if k == "required" else without_required(v, keys)
            for k, v in schema.items()
        }
    if isinstance(schema, list):
        return [without_required(item, keys) for item in schema]
    return schema


def main():
    failures = []
    error_schema = Draft202012Validator(load(ROOT / "error.schema.json"))
    count = 0
    for function_dir in sorted(p for p in ROOT.iterdir() if (p / "request.schema.json").exists()):
        request_schema = Draft202012Validator(load(function_dir / "request.schema.json"))
        answer_schema = Draft202012Validator(load(function_dir / "answer.schema.json"))
        for example_path in sorted((function_dir / "examples").glob("*/*.json")):
            count += 1
            example = load(example_path)
            name = example_path.relative_to(ROOT)
            kind = example_path.parent.name
            for setup in example.get("setup", []):
                if not request_schema.is_valid(setup["body"]) and setup["function"] == function_dir.name:
                    failures.append(f"{name}: a setup body does not match the request schema")
            request = example["request"]
            answer = example["answer"]
            # GET functions take their arguments in the query string.
            arguments = request.get("query", {}) if request.get("method") == "GET" else request.get("body", {})
            if kind == "valid":
                if "raw_body" not in request:
                    for error in request_schema.iter_errors(arguments):
                        failures.append(f"{name}: request: {error.message}")
                # Keys an example leaves out ("ignore": values of the clock) may be
                # missing from its answer wherever the schema requires them.
                schema = answer_schema
                if example.get("ignore"):
                    schema = Draft202012Validator(without_required(answer_schema.schema, set(example["ignore"])))
                for error in schema.iter_errors(answer["body"]):
                    failures.append(f"{name}: answer: {error.message}")
            else:
                error_answer = {"error": dict(answer["error"], message="stand-in")}
                for error in error_schema.iter_errors(error_answer):
                    failures.append(f"{name}: error answer: {error.message}")
                body = arguments if "raw_body" not in request and "raw_body_base64" not in request else None
                in_body = answer["error"].get("field", "") in request_schema.schema.get("properties", {}) or "field" not in answer["error"]
                if "schema_cannot_tell" in example:
                    continue
                if answer["status"] == 400 and in_body and isinstance(body, dict) and request_schema.is_valid(body):
                    failures.append(f"{name}: the request schema accepts a body the gateway refuses")
    for failure in failures:
        print(failure)
    print(f"{count} examples checked, {len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
