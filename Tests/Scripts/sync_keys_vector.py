#!/usr/bin/env python3
"""Computes MedVault's sync-key test vector independently (Python's hmac and hashlib, and
the `cryptography` package's Ed25519 for the device-signing public key).

Usage: sync_keys_vector.py VAULT_KEY_HEX VAULT_ID_HEX TABLE RECORD_ID_HEX
Prints three lines in hex: the envelope key, the record key, and the public key of the
device-signing key. The derivation is documented in docs/sync.md ("Keys").
"""
import hashlib
import hmac
import struct
import sys


def hkdf32(ikm: bytes, salt: bytes, info: bytes) -> bytes:
    prk = hmac.new(salt, ikm, hashlib.sha256).digest()
    return hmac.new(prk, info + b"\x01", hashlib.sha256).digest()


def main() -> None:
    vault_key, vault_id = bytes.fromhex(sys.argv[1]), bytes.fromhex(sys.argv[2])
    table, record_id = sys.argv[3].encode("utf-8"), bytes.fromhex(sys.argv[4])
    envelope = hkdf32(vault_key, vault_id, b"MedVault sync envelope key v1")
    record = hkdf32(vault_key, vault_id, b"MedVault sync record key v1")
    signing = hkdf32(vault_key, vault_id, b"MedVault sync device signing key v1")
    record_key = hmac.new(record, struct.pack(">I", len(table)) + table + record_id, hashlib.sha256).digest()
    print(envelope.hex())
    print(record_key.hex())
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
    public = Ed25519PrivateKey.from_private_bytes(signing).public_key()
    print(public.public_bytes(Encoding.Raw, PublicFormat.Raw).hex())


if __name__ == "__main__":
    main()
