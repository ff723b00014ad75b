#!/usr/bin/env python3
"""Known answers for the firmware's ML-KEM-512 build (src/algorithms/ml_kem.rs),
computed apart from the Rust code with kyber-py (pip install kyber-py), a
FIPS 203 implementation in Python tested against NIST's ACVP vectors.

The seed d, z is NIST ACVP-Server's ML-KEM keyGen (FIPS203) tcId 1
(gen-val/json-files/ML-KEM-keyGen-FIPS203); m is the bytes 0..31.
"""
import hashlib

from kyber_py.ml_kem import ML_KEM_512

d = bytes.fromhex("AD31001CB9E56CD1A2010121D5F9F050E85E2F4BF92B37C7EA117345276C5308")
z = bytes.fromhex("7ACDF8737D9EADDFED0B7049D6559D30BDF8DDB56B5084A6A47EBA66C55ADC13")
m = bytes(range(32))

ek, dk = ML_KEM_512._keygen_internal(d, z)
shared, ct = ML_KEM_512._encaps_internal(ek, m)
assert ML_KEM_512._decaps_internal(dk, ct) == shared
bad = bytearray(ct)
bad[100] ^= 0x04
rejected = ML_KEM_512._decaps_internal(dk, bytes(bad))
print("EK_SHA3", hashlib.sha3_256(ek).hexdigest())
print("CT_SHA3", hashlib.sha3_256(ct).hexdigest())
print("SHARED", shared.hex())
print("REJECTED", rejected.hex())
