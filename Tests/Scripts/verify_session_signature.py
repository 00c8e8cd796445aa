"""Verifies the session signatures of a MedVault FHIR R4 export without MedVault: the
third party's check (docs/medico-legal.md, "Checking a signature without MedVault").

    python3 verify_session_signature.py <bundle.json> --trusted-key <hex> [--trusted-key <hex> ...]

The public key is trusted out of band (the professional or the clinic publishes it); a
signature under any other key fails. Every Provenance with MedVault's signature policy
(`urn:medvault:session-signature:…`) must carry MedVault's Ed25519 extensions. For each,
with Python's `cryptography` and the documented encodings only (text = 0x01, u32
big-endian length, UTF-8; absent = 0x00):
  1. the Ed25519 signature (`signature.data`) of the attestation (extension
     `…:signed-attestation`) under the public key (extension `…:ed25519-public-key`),
     which must be a trusted key;
  2. the attestation — domain, session id, content SHA-256, encoding version, professional
     id, name, license, signed-at milliseconds — against the SHA-256 of the signed content
     (extension `…:signed-content`), the `…:content-sha256` extension, and the Provenance's
     agent and signature.who (Practitioner id, name; license), recorded and signature.when;
  3. the signed content — domain, session id, patient id, chief complaint, notes,
     treatment plan, diagnoses (id, clinical notes) — against the export itself: the
     Encounter the Provenance targets (its id, subject, reasonCode), the DocumentReference
     of the notes, the CarePlan's description, and the Conditions it targets (ids, notes).
A resource type/id that appears twice fails the whole export.

Prints one line of JSON: {"verified": <count>, "keys": [<hex>...], "failures": [<reason>...]};
exits 1 when any signature fails, 2 when the export holds none.
"""
import argparse
import base64
import datetime
import hashlib
import json
import sys

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

PREFIX = "urn:medvault:fhir:session-signature:"
POLICY = "urn:medvault:session-signature:"


class Reader:
    def __init__(self, data):
        self.data, self.offset = data, 0

    def text(self):
        marker = self.data[self.offset]
        self.offset += 1
        if marker == 0:
            return None
        if marker != 1:
            raise ValueError("bad field marker")
        length = self.u32()
        value = self.data[self.offset:self.offset + length].decode("utf-8")
        self.offset += length
        return value

    def u32(self):
        value = int.from_bytes(self.data[self.offset:self.offset + 4], "big")
        self.offset += 4
        return value

    def end(self):
        if self.offset != len(self.data):
            raise ValueError("trailing bytes")


def content_fields(data):
    reader = Reader(data)
    fields = [reader.text() for _ in range(6)]
    diagnoses = [(reader.text(), reader.text()) for _ in range(reader.u32())]
    reader.end()
    return fields, diagnoses


def attestation_fields(data):
    reader = Reader(data)
    fields = [reader.text() for _ in range(8)]
    reader.end()
    return fields


def milliseconds(instant):
    parsed = datetime.datetime.fromisoformat(instant.replace("Z", "+00:00"))
    return round(parsed.timestamp() * 1000)


def same_id(reference, uuid_text, kind):
    return reference == f"{kind}/{uuid_text.lower()}"


def check(provenance, resources, trusted):
    """The failure reason for one Provenance, or None when it verifies."""
    signature = provenance["signature"][0]
    extensions = {e["url"][len(PREFIX):]: base64.b64decode(e["valueBase64Binary"])
                  for e in signature.get("extension", []) if e["url"].startswith(PREFIX)}
    needed = ["ed25519-public-key", "signed-content", "content-sha256", "signed-attestation"]
    if any(name not in extensions for name in needed):
        return "a MedVault signature without its Ed25519 extensions"
    key, content, attestation = (extensions["ed25519-public-key"], extensions["signed-content"],
                                 extensions["signed-attestation"])
    if key.hex() not in trusted:
        return f"signed with key {key.hex()}, which is not trusted"
    try:
        Ed25519PublicKey.from_public_bytes(key).verify(base64.b64decode(signature["data"]), attestation)
    except InvalidSignature:
        return "the Ed25519 signature does not verify"
    (domain, session_id, digest, version, professional_id, name, license_number, signed_at) = \
        attestation_fields(attestation)
    if domain != "medvault.session-attestation.v1" or version != "1":
        return "an unknown attestation"
    if hashlib.sha256(content).hexdigest() != digest or extensions["content-sha256"].hex() != digest:
        return "the signed content is not the attested content"
    agent = provenance["agent"][0]["who"]
    signer = signature["who"]
    if (not same_id(agent["reference"], professional_id, "Practitioner") or agent.get("display") != name
            or not same_id(signer["reference"], professional_id, "Practitioner") or signer.get("display") != name
            or signer["identifier"]["value"] != license_number
            or milliseconds(provenance["recorded"]) != int(signed_at)
            or milliseconds(signature["when"]) != int(signed_at)):
        return "who signed or when is not what the signature attests"
    (content_domain, content_session, patient_id, complaint, notes, plan), diagnoses = content_fields(content)
    if content_domain != "medvault.session-signature.v1" or content_session != session_id:
        return "the signed content is not this session's"
    targets = [t["reference"] for t in provenance.get("target", [])]
    encounters = [resources.get(t) for t in targets if t.startswith("Encounter/")]
    if len(encounters) != 1 or encounters[0] is None or encounters[0]["id"] != session_id.lower():
        return "the signed session is not the Encounter it targets"
    encounter = encounters[0]
    if not same_id(encounter["subject"]["reference"], patient_id, "Patient"):
        return "the Encounter's patient is not the signed one"
    shown_complaint = [r.get("text") for r in encounter.get("reasonCode", [])]
    if shown_complaint != ([complaint] if complaint is not None else []):
        return "the chief complaint in the export is not the signed one"
    documents = [resources.get(t) for t in targets if t.startswith("DocumentReference/")]
    shown_notes = [base64.b64decode(d["content"][0]["attachment"]["data"]).decode("utf-8")
                   for d in documents if d is not None]
    if shown_notes != ([notes] if notes is not None else []) or None in documents:
        return "the notes in the export are not the signed notes"
    plans = [resources.get(t) for t in targets if t.startswith("CarePlan/")]
    if [p.get("description") for p in plans if p is not None] != ([plan] if plan is not None else []):
        return "the plan in the export is not the signed plan"
    conditions = {t.split("/", 1)[1]: resources.get(t) for t in targets if t.startswith("Condition/")}
    if sorted(conditions) != sorted(d[0].lower() for d in diagnoses):
        return "the diagnoses in the export are not the signed ones"
    for diagnosis_id, diagnosis_notes in diagnoses:
        condition = conditions[diagnosis_id.lower()]
        shown = [n.get("text") for n in (condition or {}).get("note", [])]
        if condition is None or shown != ([diagnosis_notes] if diagnosis_notes is not None else []):
            return "a diagnosis's notes in the export are not the signed ones"
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bundle")
    parser.add_argument("--trusted-key", action="append", required=True)
    arguments = parser.parse_args()
    trusted = {key.lower() for key in arguments.trusted_key}
    with open(arguments.bundle, encoding="utf-8") as handle:
        bundle = json.load(handle)
    resources, failures = {}, []
    for entry in bundle.get("entry", []):
        resource = entry.get("resource", {})
        name = f'{resource.get("resourceType")}/{resource.get("id")}'
        if name in resources:
            failures.append(f"{name} appears twice")
        resources[name] = resource
    verified, keys = 0, []
    for name, resource in resources.items():
        if resource["resourceType"] != "Provenance":
            continue
        if not any(p.startswith(POLICY) for p in resource.get("policy", [])):
            continue
        try:
            reason = check(resource, resources, trusted)
        except (KeyError, IndexError, ValueError, TypeError) as error:
            reason = f"malformed: {type(error).__name__}"
        if reason:
            failures.append(f"{name}: {reason}")
        else:
            verified += 1
            keys.append(base64.b64decode(next(e["valueBase64Binary"] for e in resource["signature"][0]["extension"]
                                              if e["url"] == PREFIX + "ed25519-public-key")).hex())
    print(json.dumps({"verified": verified, "keys": keys, "failures": failures}), flush=True)
    if failures:
        sys.exit(1)
    if verified == 0:
        sys.exit(2)


main()
