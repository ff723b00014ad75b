"""The independent side of crates/cli/tests/pq_cli.rs: ML-KEM with kyber-py and
ML-DSA with dilithium-py (pure-Python FIPS 203/204 implementations by another
author; scripts/setup installs them). One operation per call, hex in, hex out:

  kem-derive ALG SEED         -> ek dk        (ML-KEM.KeyGen_internal(d, z))
  kem-keygen ALG              -> ek dk
  kem-encaps ALG EK           -> ct k
  kem-decaps ALG DK CT        -> k
  dsa-derive ALG SEED         -> pk sk        (ML-DSA.KeyGen_internal(xi))
  dsa-keygen ALG              -> pk sk
  dsa-sign ALG SK MSG CTX     -> sig          (hedged, FIPS 204's default)
  dsa-verify ALG PK MSG SIG CTX -> ok | bad
"""
import sys

from dilithium_py.ml_dsa import ML_DSA_44, ML_DSA_65
from kyber_py.ml_kem import ML_KEM_512, ML_KEM_768

KEMS = {"ml-kem-512": ML_KEM_512, "ml-kem-768": ML_KEM_768}
DSAS = {"ml-dsa-44": ML_DSA_44, "ml-dsa-65": ML_DSA_65}


def main(op, alg, *args):
    raw = [bytes.fromhex(a) for a in args]
    if op.startswith("kem-"):
        kem = KEMS[alg]
        out = {
            "kem-derive": lambda: kem.key_derive(raw[0]),
            "kem-keygen": kem.keygen,
            "kem-encaps": lambda: kem.encaps(raw[0])[::-1],  # (K, c) -> c K
            "kem-decaps": lambda: (kem.decaps(raw[0], raw[1]),),
        }[op]()
    else:
        dsa = DSAS[alg]
        out = {
            "dsa-derive": lambda: dsa.key_derive(raw[0]),
            "dsa-keygen": dsa.keygen,
            "dsa-sign": lambda: (dsa.sign(raw[0], raw[1], ctx=raw[2]),),
        }.get(op, lambda: None)()
        if op == "dsa-verify":
            print("ok" if dsa.verify(raw[0], raw[1], raw[2], ctx=raw[3]) else "bad")
            return
    print(" ".join(x.hex() for x in out))


if __name__ == "__main__":
    main(*sys.argv[1:])
