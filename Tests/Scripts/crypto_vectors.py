"""Prints, as one line of JSON, the published test vectors MedVault's primitives must
reproduce, read from PyPI's cryptography-vectors (the vectors the `cryptography` package is
tested with): ChaCha20-Poly1305 (RFC 7539/8439 and the OpenSSL and BoringSSL sets), Poly1305
(RFC 7539), HMAC-SHA256 (RFC 4231) and HKDF-SHA256 (RFC 5869).

Output: {"aead": [...], "poly1305": [...], "hmac": [...], "hkdf": [...]}, every byte string
in hex. AEAD entries with a 32-byte key, a 12-byte nonce and a 16-byte tag only; "fails" marks
an entry whose tag must be refused.

Run by PrimitiveVectorTests; standard input is the test's lifeline (unused here).
"""
import json
import os

import cryptography_vectors

ROOT = os.path.dirname(cryptography_vectors.__file__)


def entries(relative):
    """The file's entries (each starts at a COUNT or Len line; blank lines may fall inside
    one): dicts of upper-case name to bytes (hex, or a quoted string)."""
    found, current = [], {}
    with open(os.path.join(ROOT, relative), encoding="utf-8") as handle:
        for raw in handle:
            line = raw.strip()
            if not line or line.startswith("#") or line.startswith("[") or "=" not in line:
                continue
            name, value = (part.strip() for part in line.split("=", 1))
            name = name.upper()
            if name in ("COUNT", "LEN"):
                if current:
                    found.append(current)
                current = {}
            if name in ("COUNT", "LEN", "L", "HASH", "RESULT"):
                current[name] = value
            elif value.startswith('"') and value.endswith('"') and len(value) >= 2:
                current[name] = value[1:-1].encode("utf-8")
            else:
                current[name] = bytes.fromhex(value)
    if current:
        found.append(current)
    return found


def first(entry, *names):
    for name in names:
        if name in entry:
            return entry[name]
    return None


def aead():
    out = []
    for relative in ("ciphers/ChaCha20Poly1305/openssl.txt", "ciphers/ChaCha20Poly1305/boringssl.txt"):
        for entry in entries(relative):
            key, nonce = first(entry, "KEY"), first(entry, "IV", "NONCE")
            tag = first(entry, "TAG")
            plaintext, ciphertext = first(entry, "PLAINTEXT", "IN"), first(entry, "CIPHERTEXT", "CT")
            if None in (key, nonce, tag, plaintext, ciphertext):
                continue
            if len(key) != 32 or len(nonce) != 12 or len(tag) != 16 or len(plaintext) != len(ciphertext):
                continue
            out.append({
                "key": key.hex(), "nonce": nonce.hex(), "aad": (first(entry, "AAD", "AD") or b"").hex(),
                "plaintext": plaintext.hex(), "ciphertext": ciphertext.hex(), "tag": tag.hex(),
                "fails": "RESULT" in entry,
            })
    return out


def poly1305():
    return [{"key": e["KEY"].hex(), "message": e["MSG"].hex(), "tag": e["TAG"].hex()}
            for e in entries("poly1305/rfc7539.txt") if "KEY" in e]


def hmac():
    return [{"key": e["KEY"].hex(), "message": e["MSG"].hex(), "mac": e["MD"].hex()}
            for e in entries("HMAC/rfc-4231-sha256.txt") if "KEY" in e and "MD" in e]


def hkdf():
    return [{"ikm": e["IKM"].hex(), "salt": e.get("SALT", b"").hex(), "info": e.get("INFO", b"").hex(),
             "okm": e["OKM"].hex()}
            for e in entries("KDF/rfc-5869-HKDF-SHA256.txt") if "IKM" in e]


print(json.dumps({"aead": aead(), "poly1305": poly1305(), "hmac": hmac(), "hkdf": hkdf()}), flush=True)
