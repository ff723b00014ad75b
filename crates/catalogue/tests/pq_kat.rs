//! FIPS 203 and FIPS 204 known answers from NIST's ACVP vectors, and X-Wing's
//! from its draft, for every post-quantum entry (tests/vectors/pq/README.md
//! names each file's source). Key generation, encapsulation, signing and
//! verification run through the same catalogue calls the CLI makes; the
//! internal functions ACVP tests with fixed randomness through `known_answers`.

use ciphermeter_catalogue::{AsymmetricScheme, Error, catalogue, known_answers};
use serde_json::Value;

fn vectors(name: &str) -> Value {
    let path = format!("{}/tests/vectors/pq/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn hex(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().unwrap()).unwrap()
}

fn scheme(id: &str) -> &'static dyn AsymmetricScheme {
    catalogue().get(id).unwrap().asymmetric(None).unwrap()
}

/// Each group's catalogue id ("ML-KEM-512" → "ml-kem-512") and its tests.
fn groups(file: &Value) -> Vec<(String, &Value, &Vec<Value>)> {
    file["testGroups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            let id = g["parameterSet"].as_str().unwrap().to_lowercase();
            (id, g, g["tests"].as_array().unwrap())
        })
        .collect()
}

/// Counts the cases run per parameter set, so a file that lost a group fails.
fn ran(counts: &[(String, usize)], expected: &[&str]) {
    for id in expected {
        let n = counts
            .iter()
            .filter(|(i, _)| i == id)
            .map(|(_, n)| n)
            .sum::<usize>();
        assert!(n >= 10, "{id}: only {n} vectors ran");
    }
}

#[test]
fn ml_kem_key_generation_from_d_and_z() {
    let file = vectors("ml-kem-keygen.json");
    let mut counts = vec![];
    for (id, _, tests) in groups(&file) {
        let kem = scheme(&id);
        for t in tests {
            let seed = [hex(&t["d"]), hex(&t["z"])].concat();
            let pair = kem.keygen_from_seed(&seed).unwrap();
            assert_eq!(pair.public, hex(&t["ek"]), "{id} tcId {}", t["tcId"]);
            assert_eq!(*pair.private, seed);
            // The expanded dk loads too, and decapsulates as the seed does.
            let from_dk = kem.load_private(&hex(&t["dk"])).unwrap();
            let sent = kem
                .load_public(&pair.public)
                .unwrap()
                .encapsulate()
                .unwrap();
            assert_eq!(
                from_dk.decapsulate(&sent.ciphertext).unwrap(),
                sent.shared_secret
            );
        }
        counts.push((id, tests.len()));
    }
    ran(&counts, &["ml-kem-512", "ml-kem-768"]);
}

#[test]
fn ml_kem_encapsulation_and_decapsulation() {
    let file = vectors("ml-kem-encapdecap.json");
    let mut counts = vec![];
    for (id, group, tests) in groups(&file) {
        let kem = scheme(&id);
        for t in tests {
            let case = format!("{id} tcId {}", t["tcId"]);
            match group["function"].as_str().unwrap() {
                "encapsulation" => {
                    let sent =
                        known_answers::ml_kem_encapsulate(&id, &hex(&t["ek"]), &hex(&t["m"]))
                            .unwrap();
                    assert_eq!(sent.ciphertext, hex(&t["c"]), "{case}");
                    assert_eq!(*sent.shared_secret, hex(&t["k"]), "{case}");
                    let dk = kem.load_private(&hex(&t["dk"])).unwrap();
                    assert_eq!(*dk.decapsulate(&hex(&t["c"])).unwrap(), hex(&t["k"]));
                }
                // Valid and modified ciphertexts: a modified one yields the
                // implicit-rejection key ACVP expects, never an error.
                "decapsulation" => {
                    let dk = kem.load_private(&hex(&group["dk"])).unwrap();
                    let k = dk.decapsulate(&hex(&t["c"])).unwrap();
                    assert_eq!(*k, hex(&t["k"]), "{case} ({})", t["reason"]);
                }
                other => panic!("unknown function {other}"),
            }
        }
        counts.push((id, tests.len()));
    }
    ran(&counts, &["ml-kem-512", "ml-kem-768"]);
}

#[test]
fn ml_dsa_key_generation_from_xi() {
    let file = vectors("ml-dsa-keygen.json");
    let mut counts = vec![];
    for (id, _, tests) in groups(&file) {
        for t in tests {
            let pair = scheme(&id).keygen_from_seed(&hex(&t["seed"])).unwrap();
            assert_eq!(pair.public, hex(&t["pk"]), "{id} tcId {}", t["tcId"]);
        }
        counts.push((id, tests.len()));
    }
    ran(&counts, &["ml-dsa-44", "ml-dsa-65"]);
}

#[test]
fn ml_dsa_signing_deterministic_and_hedged() {
    let file = vectors("ml-dsa-siggen.json");
    let mut counts = vec![];
    for (id, group, tests) in groups(&file) {
        for t in tests {
            let rnd = match group["deterministic"].as_bool().unwrap() {
                true => vec![0; 32],
                false => hex(&t["rnd"]),
            };
            let sig =
                known_answers::ml_dsa_sign_internal(&id, &hex(&t["sk"]), &hex(&t["message"]), &rnd)
                    .unwrap();
            assert_eq!(sig, hex(&t["signature"]), "{id} tcId {}", t["tcId"]);
        }
        counts.push((id, tests.len()));
    }
    ran(&counts, &["ml-dsa-44", "ml-dsa-65"]);
}

#[test]
fn ml_dsa_verification_accepts_and_refuses_as_acvp_says() {
    let file = vectors("ml-dsa-sigver.json");
    let mut refused = 0;
    for (id, group, tests) in groups(&file) {
        for t in tests {
            let result = known_answers::ml_dsa_verify_internal(
                &id,
                &hex(&group["pk"]),
                &hex(&t["message"]),
                &hex(&t["signature"]),
            );
            let case = format!("{id} tcId {} ({})", t["tcId"], t["reason"]);
            match t["testPassed"].as_bool().unwrap() {
                true => result.unwrap(),
                false => {
                    assert!(
                        matches!(result, Err(Error::AuthenticationFailed { .. })),
                        "{case}: {result:?}"
                    );
                    refused += 1;
                }
            }
        }
    }
    assert!(refused >= 10, "only {refused} bad signatures were tried");
}

/// FIPS 204's external interface is the internal one over M′ = 0 ‖ |ctx| ‖ ctx ‖ M
/// (Algorithm 2): what `sign --context` makes verifies internally over M′, and
/// not under another context.
#[test]
fn ml_dsa_context_is_bound_as_fips_204_defines() {
    for id in ["ml-dsa-44", "ml-dsa-65"] {
        let dsa = scheme(id);
        let pair = dsa.keygen_from_seed(&[7; 32]).unwrap();
        let (message, context) = (b"reading 42".as_slice(), b"ciphermeter".as_slice());
        let sig = dsa
            .load_private(&pair.private)
            .unwrap()
            .sign_with_context(message, context)
            .unwrap();
        let m_prime = [&[0, context.len() as u8][..], context, message].concat();
        known_answers::ml_dsa_verify_internal(id, &pair.public, &m_prime, &sig).unwrap();
        let public = dsa.load_public(&pair.public).unwrap();
        public.verify_with_context(message, context, &sig).unwrap();
        assert!(matches!(
            public.verify_with_context(message, b"other", &sig),
            Err(Error::AuthenticationFailed { .. })
        ));
        assert!(matches!(
            public.verify(message, &sig),
            Err(Error::AuthenticationFailed { .. })
        ));
        let long = dsa
            .load_private(&pair.private)
            .unwrap()
            .sign_with_context(message, &[0; 256]);
        assert!(matches!(long, Err(Error::InvalidInput { .. })), "{id}");
    }
}

#[test]
fn x_wing_draft_06_vectors() {
    let file = vectors("xwing-draft06.json");
    let cases = file.as_array().unwrap();
    assert_eq!(cases.len(), 3);
    let kem = scheme("x-wing");
    for t in cases {
        let pair = kem.keygen_from_seed(&hex(&t["seed"])).unwrap();
        assert_eq!(pair.public, hex(&t["pk"]));
        assert_eq!(*pair.private, hex(&t["sk"]));
        let sent = known_answers::x_wing_encapsulate(&pair.public, &hex(&t["eseed"])).unwrap();
        assert_eq!(sent.ciphertext, hex(&t["ct"]));
        assert_eq!(*sent.shared_secret, hex(&t["ss"]));
        let private = kem.load_private(&pair.private).unwrap();
        assert_eq!(*private.decapsulate(&hex(&t["ct"])).unwrap(), hex(&t["ss"]));
    }
}

/// Encapsulation keys with a coefficient ≥ q are refused (FIPS 203 §7.2), and
/// an expanded dk whose H(ek) was altered (§7.3), with a clear error.
#[test]
fn ml_kem_input_checks() {
    let kem = scheme("ml-kem-512");
    let pair = kem.keygen_from_seed(&[1; 64]).unwrap();
    let mut bad = pair.public.clone();
    bad[0] = 0xFF;
    bad[1] |= 0x0F; // first 12-bit coefficient 0xFFF ≥ 3329
    assert!(matches!(
        kem.load_public(&bad),
        Err(Error::InvalidInput { .. })
    ));
    let file = vectors("ml-kem-keygen.json");
    let t = &file["testGroups"][0]["tests"][0];
    let mut dk = hex(&t["dk"]);
    let h_at = dk.len() - 64;
    dk[h_at] ^= 1;
    assert!(matches!(
        kem.load_private(&dk),
        Err(Error::InvalidInput { .. })
    ));
    assert!(matches!(
        kem.keygen_from_seed(&[1; 32]),
        Err(Error::InvalidInput { .. })
    ));
}
