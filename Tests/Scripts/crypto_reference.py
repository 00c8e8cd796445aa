"""The independent reference of MedVault's primitive tests: SHA-256, HMAC-SHA256,
HKDF-SHA256, ChaCha20-Poly1305 and Ed25519 by Python's `hashlib`, `hmac` and
`cryptography` (OpenSSL underneath), never by libsodium, which MedVault itself uses.

    python3 crypto_reference.py <requests.json>

The file holds a JSON array of requests, each an array: an operation's name, then its
inputs as hex strings:
  ["sha256", message]
  ["hmac", key, message]                      HMAC-SHA256
  ["hkdf", ikm, salt, info]                   the first 32 bytes of HKDF-SHA256
  ["chacha-seal", key, nonce, aad, message]   ciphertext ‖ tag (RFC 8439)
  ["ed25519-public", seed]                    the public key of a 32-byte seed
  ["ed25519-verify", public key, message, signature]   "01" when valid, else "00"

Prints one line of JSON: an array of hex strings, one answer per request, in order.
"""
import hashlib
import hmac
import json
import sys

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF


def ed25519_verify(public, message, signature):
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signature, message)
        return b"\x01"
    except (InvalidSignature, ValueError):
        return b"\x00"


OPERATIONS = {
    "sha256": lambda m: hashlib.sha256(m).digest(),
    "hmac": lambda k, m: hmac.new(k, m, hashlib.sha256).digest(),
    "hkdf": lambda ikm, salt, info: HKDF(algorithm=hashes.SHA256(), length=32, salt=salt, info=info).derive(ikm),
    "chacha-seal": lambda k, n, aad, m: ChaCha20Poly1305(k).encrypt(n, m, aad),
    "ed25519-public": lambda seed: Ed25519PrivateKey.from_private_bytes(seed).public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw),
    "ed25519-verify": ed25519_verify,
}


def main():
    with open(sys.argv[1]) as handle:
        requests = json.load(handle)
    answers = [OPERATIONS[name](*(bytes.fromhex(value) for value in inputs)).hex()
               for name, *inputs in requests]
    print(json.dumps(answers), flush=True)


if __name__ == "__main__":
    main()
