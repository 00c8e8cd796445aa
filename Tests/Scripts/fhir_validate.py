#!/usr/bin/env python3
"""Validates MedVault's FHIR R4 exports with an independent validator: the R4B models of
PyPI's fhir.resources (pydantic models generated from the FHIR specification; R4B shares
R4's resources for everything MedVault writes), installed by `make deps`.

Usage: fhir_validate.py FILE...
  FILE ending in .ndjson: one resource per line (FHIR Bulk Data), each parsed by its
  resourceType's model; any other FILE: one JSON resource (a Bundle).

Prints a JSON summary {"resources": {type: count}} on success. Exit status: 0 valid,
1 invalid (the first error on standard error), 3 fhir.resources is missing.
"""
import json
import sys

try:
    from fhir.resources.R4B import construct_fhir_element
except ImportError as error:  # pragma: no cover
    print(f"fhir.resources is not installed: {error}; run `make deps`", file=sys.stderr)
    sys.exit(3)


def validate(resource, where, counts):
    kind = resource.get("resourceType")
    if not isinstance(kind, str):
        raise ValueError(f"{where}: no resourceType")
    element = construct_fhir_element(kind, resource)
    # The model re-serialised must keep every element given: nothing was silently dropped.
    back = json.loads(element.json())
    missing = sorted(set(resource) - set(back))
    if missing:
        raise ValueError(f"{where}: elements dropped by the model: {missing}")
    counts[kind] = counts.get(kind, 0) + 1
    if kind == "Bundle":
        for entry in resource.get("entry", []):
            inner = entry["resource"]
            counts[inner["resourceType"]] = counts.get(inner["resourceType"], 0) + 1


def main(paths):
    counts = {}
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            if path.endswith(".ndjson"):
                for number, line in enumerate(handle, start=1):
                    if line.strip():
                        validate(json.loads(line), f"{path}:{number}", counts)
            else:
                validate(json.load(handle), path, counts)
    print(json.dumps({"resources": counts}, sort_keys=True))


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except Exception as error:  # every failure is "invalid", with its reason
        print(f"invalid FHIR: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
