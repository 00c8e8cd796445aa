#!/usr/bin/env python3
"""Computes MedVault's sync-key test vector independently (Python's hmac and hashlib).

Usage: sync_keys_vector.py VAULT_KEY_HEX VAULT_ID_HEX TABLE RECORD_ID_HEX CHALLENGE_HEX
Prints three lines: the envelope key, the record key and the device proof, in hex.
The derivation is documented in docs/sync.md ("Keys").
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
    challenge = bytes.fromhex(sys.argv[5])
    envelope = hkdf32(vault_key, vault_id, b"MedVault sync envelope key v1")
    record = hkdf32(vault_key, vault_id, b"MedVault sync record key v1")
    proof = hkdf32(vault_key, vault_id, b"MedVault sync device proof v1")
    record_key = hmac.new(record, struct.pack(">I", len(table)) + table + record_id, hashlib.sha256).digest()
    print(envelope.hex())
    print(record_key.hex())
    print(hmac.new(proof, challenge, hashlib.sha256).digest().hex())


if __name__ == "__main__":
    main()
