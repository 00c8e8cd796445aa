"""Verifies the session signatures of a MedVault FHIR R4 export without MedVault: the
third party's check (docs/medico-legal.md, "Checking a signature without MedVault").

    python3 verify_session_signature.py <bundle.json>

For each Provenance whose signature carries MedVault's Ed25519 extensions it checks, with
Python's `cryptography` and the documented encoding only:
  1. the Ed25519 signature (`signature.data`) of the signed bytes (extension
     `...:signed-content`) under the public key (extension `...:ed25519-public-key`);
  2. the SHA-256 of the signed bytes against the extension `...:content-sha256`;
  3. the signed bytes, decoded (text = 0x01, u32 big-endian length, UTF-8; absent = 0x00):
     domain "medvault.session-signature.v1", session id, patient id, chief complaint,
     notes, treatment plan, diagnoses — against the export itself: the notes against the
     text of the DocumentReference the Provenance targets, the plan against the CarePlan's
     description, the session against the Encounter's id.

Prints one line of JSON: {"verified": <count>, "failures": [<reason>, ...]}; exits 1 when
any signature fails, 2 when the export holds none.
"""
import base64
import hashlib
import json
import sys

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

PREFIX = "urn:medvault:fhir:session-signature:"


def texts(data):
    """The fields of the canonical encoding, in order (None for absent)."""
    fields, offset = [], 0
    def read_text():
        nonlocal offset
        marker = data[offset]
        offset += 1
        if marker == 0:
            return None
        if marker != 1:
            raise ValueError("bad field marker")
        length = int.from_bytes(data[offset:offset + 4], "big")
        offset += 4
        value = data[offset:offset + length].decode("utf-8")
        offset += length
        return value
    for _ in range(6):
        fields.append(read_text())
    count = int.from_bytes(data[offset:offset + 4], "big")
    offset += 4
    diagnoses = [(read_text(), read_text()) for _ in range(count)]
    if offset != len(data):
        raise ValueError("trailing bytes")
    return fields, diagnoses


def main():
    with open(sys.argv[1], encoding="utf-8") as handle:
        bundle = json.load(handle)
    resources = {}
    for entry in bundle.get("entry", []):
        resource = entry["resource"]
        resources[f'{resource["resourceType"]}/{resource["id"]}'] = resource
    verified, failures = 0, []
    for resource in resources.values():
        if resource["resourceType"] != "Provenance":
            continue
        for signature in resource.get("signature", []):
            extensions = {e["url"][len(PREFIX):]: base64.b64decode(e["valueBase64Binary"])
                          for e in signature.get("extension", []) if e["url"].startswith(PREFIX)}
            if "signed-content" not in extensions:
                continue
            content, key = extensions["signed-content"], extensions["ed25519-public-key"]
            try:
                Ed25519PublicKey.from_public_bytes(key).verify(base64.b64decode(signature["data"]), content)
            except InvalidSignature:
                failures.append(f'{resource["id"]}: the Ed25519 signature does not verify')
                continue
            if hashlib.sha256(content).digest() != extensions["content-sha256"]:
                failures.append(f'{resource["id"]}: the digest does not match the signed bytes')
                continue
            (domain, session_id, _patient, _complaint, notes, plan), _diagnoses = texts(content)
            if domain != "medvault.session-signature.v1":
                failures.append(f'{resource["id"]}: unknown encoding {domain}')
                continue
            targets = [t["reference"] for t in resource.get("target", [])]
            encounters = [t for t in targets if t.startswith("Encounter/")]
            if not encounters or encounters[0].split("/")[1].lower() != session_id.lower():
                failures.append(f'{resource["id"]}: the signed session is not the Encounter it targets')
                continue
            documents = [resources[t] for t in targets if t.startswith("DocumentReference/") and t in resources]
            shown = [base64.b64decode(d["content"][0]["attachment"]["data"]).decode("utf-8") for d in documents]
            if (notes is not None or shown) and shown != [notes]:
                failures.append(f'{resource["id"]}: the notes in the export are not the signed notes')
                continue
            plans = [resources[t].get("description") for t in targets if t.startswith("CarePlan/") and t in resources]
            if (plan is not None or plans) and plans != [plan]:
                failures.append(f'{resource["id"]}: the plan in the export is not the signed plan')
                continue
            verified += 1
    print(json.dumps({"verified": verified, "failures": failures}), flush=True)
    if failures:
        sys.exit(1)
    if verified == 0:
        sys.exit(2)


main()
