"""The reference side of PrimitiveDifferentialTests: ChaCha20-Poly1305, HMAC-SHA256 and
HKDF-SHA256 by Python's `cryptography` (OpenSSL underneath) on cases both sides derive from
one seed, so only digests cross the pipe.

    python3 crypto_differential.py <seed hex> <count>

Case i (0-based) is built from the stream SHA-256(seed ‖ u32be(i) ‖ u32be(j)) for j = 0, 1, …,
concatenated. Its first 32 bytes set the lengths:
  message   u16be(bytes 0–1) mod 320, or 65,536 + that when i mod 997 == 0
  aad       byte 2 mod 80
  hmac key  1 + byte 3 mod 140 (longer than a block from 65 on: hashed first)
  salt      byte 4 mod 70
  info      byte 5 mod 40
then, from byte 32 on, in order: AEAD key (32), nonce (12), aad, message, HMAC key, HKDF
input key material (32), salt, info.
Its output: ChaCha20-Poly1305 ciphertext ‖ tag of the message, HMAC-SHA256 of the message
under the HMAC key, the first 32 bytes of HKDF-SHA256 — concatenated.

Prints one line of JSON: {"digests": [hex SHA-256 of the outputs of cases 1000k … 1000k+999]}.
"""
import hashlib
import hmac
import json
import struct
import sys

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF


def stream(seed, index, length):
    out = bytearray()
    block = 0
    while len(out) < length:
        out += hashlib.sha256(seed + struct.pack(">II", index, block)).digest()
        block += 1
    return bytes(out[:length])


def case(seed, index):
    head = stream(seed, index, 32)
    message = struct.unpack(">H", head[0:2])[0] % 320
    if index % 997 == 0:
        message += 65_536
    aad, key_length, salt, info = head[2] % 80, 1 + head[3] % 140, head[4] % 70, head[5] % 40
    lengths = [32, 12, aad, message, key_length, 32, salt, info]
    body = stream(seed, index, 32 + sum(lengths))[32:]
    parts, offset = [], 0
    for length in lengths:
        parts.append(body[offset:offset + length])
        offset += length
    return parts


def outputs(parts):
    key, nonce, aad, message, hmac_key, ikm, salt, info = parts
    sealed = ChaCha20Poly1305(key).encrypt(nonce, message, aad)
    mac = hmac.new(hmac_key, message, hashlib.sha256).digest()
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=salt, info=info).derive(ikm)
    return sealed + mac + derived


def main():
    seed, count = bytes.fromhex(sys.argv[1]), int(sys.argv[2])
    digests = []
    for start in range(0, count, 1000):
        digest = hashlib.sha256()
        for index in range(start, min(start + 1000, count)):
            digest.update(outputs(case(seed, index)))
        digests.append(digest.hexdigest())
    print(json.dumps({"digests": digests}), flush=True)


main()
