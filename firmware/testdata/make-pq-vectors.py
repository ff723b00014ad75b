#!/usr/bin/env python3
"""Known answers for the firmware's ML-KEM-768, ML-DSA-44/65 and X-Wing builds
(src/algorithms/ml_kem.rs, ml_dsa.rs, x_wing.rs), computed apart from the Rust
code: ML-KEM with kyber-py, ML-DSA with dilithium-py (scripts/setup installs
both), X-Wing straight from draft-connolly-cfrg-xwing-kem-06's first test
vector (crates/catalogue/tests/vectors/pq/xwing-draft06.json). Large values are
given as their SHA3-256, as the firmware checks them.

Seeds: NIST ACVP-Server ML-KEM keyGen FIPS203 tcId 26 (ML-KEM-768) and
ML-DSA keyGen FIPS204 tcId 1 (ML-DSA-44) and 26 (ML-DSA-65), from
crates/catalogue/tests/vectors/pq/. m is the bytes 0..31; the signed message
is "ciphermeter reading" with an empty context, signed deterministically
(FIPS 204's rnd = 0).
"""
import hashlib
import json
import pathlib

from dilithium_py.ml_dsa import ML_DSA_44, ML_DSA_65
from kyber_py.ml_kem import ML_KEM_768

sha3 = lambda b: hashlib.sha3_256(b).hexdigest()
root = pathlib.Path(__file__).resolve().parents[2] / "crates/catalogue/tests/vectors/pq"

d = bytes.fromhex("E34A701C4C87582F42264EE422D3C684D97611F2523EFE0C998AF05056D693DC")
z = bytes.fromhex("A85768F3486BD32A01BF9A8F21EA938E648EAE4E5448C34C3EB88820B159EEDD")
ek, dk = ML_KEM_768._keygen_internal(d, z)
shared, ct = ML_KEM_768._encaps_internal(ek, bytes(range(32)))
bad = bytearray(ct)
bad[100] ^= 0x04
print("ML-KEM-768 EK_SHA3", sha3(ek), "CT_SHA3", sha3(ct), "SHARED", shared.hex(),
      "REJECTED", ML_KEM_768._decaps_internal(dk, bytes(bad)).hex())

message = b"ciphermeter reading"
for name, dsa, seed in [
    ("ML-DSA-44", ML_DSA_44, "93EF2E6EF1FB08999D142ABE0295482370D3F43BDB254A78E2B0D5168ECA065F"),
    ("ML-DSA-65", ML_DSA_65, "70CEFB9AED5B68E018B079DA8284B9D5CAD5499ED9C265FF73588005D85C225C"),
]:
    pk, sk = dsa.key_derive(bytes.fromhex(seed))
    sig = dsa.sign(sk, message, ctx=b"", deterministic=True)
    assert dsa.verify(pk, message, sig)
    print(name, "PK_SHA3", sha3(pk), "SIG_SHA3", sha3(sig), "SIG_LEN", len(sig))

v = json.loads((root / "xwing-draft06.json").read_text())[0]
print("X-Wing SEED", v["seed"], "ESEED", v["eseed"], "PK_SHA3", sha3(bytes.fromhex(v["pk"])),
      "CT_SHA3", sha3(bytes.fromhex(v["ct"])), "SS", v["ss"])
