//! The page's sealer makes the host's sizes: for every candidate scheme in
//! every container, over samples and serializations, `PageSealer`'s sealed
//! and plaintext lengths and description equal `cost::message::Sealer`'s
//! (which seals for real under a random key and nonce), and what it cannot
//! seal (compression) it refuses.

use cost_engine::message::{Ask, Messages};
use explore::messages::PageSealer;
use seal::host::container::MessageContainer;

const SAMPLES: [(&str, Option<&str>); 9] = [
    ("chain:1", None),
    ("chain:10", None),
    ("chain:25", Some("cbor")),
    ("chain:3", Some("json-pretty")),
    ("chain:5", Some("yaml")),
    ("chain:15", Some("yaml-min")),
    ("chain:7", Some("msgpack")),
    ("record:1.5", None),
    ("random:48", None),
];

#[test]
fn every_scheme_and_container_has_the_hosts_sizes() {
    let host = cost::message::Sealer { quick: true };
    let mut schemes = seal::sealing_candidates(true);
    schemes.sort();
    let oscore: Vec<&str> = seal::oscore_build::names().collect();
    let mut compared = 0;
    for (i, (sample, serialization)) in SAMPLES.iter().enumerate() {
        for container in MessageContainer::ALL {
            let names: Vec<&str> = if container.is_oscore() {
                oscore.clone()
            } else {
                // Every scheme on the first sample, a third of them on each other.
                schemes
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| i == 0 || j % 3 == i % 3)
                    .map(|(_, s)| s.as_str())
                    .collect()
            };
            for scheme in names {
                let ask = Ask {
                    scheme,
                    sample,
                    serialization: *serialization,
                    container,
                    compression: None,
                };
                let theirs = host.seal(&ask);
                let ours = PageSealer.seal(&ask);
                match (theirs, ours) {
                    (Ok(t), Ok(o)) => {
                        let at = format!("{scheme} in {container} on {sample}");
                        assert_eq!(o.bytes, t.bytes, "{at}");
                        assert_eq!(o.plaintext_bytes, t.plaintext_bytes, "{at}");
                        assert_eq!(o.sample_description, t.sample_description, "{at}");
                        assert_eq!(o.scheme.name(), t.scheme.name(), "{at}");
                        compared += 1;
                    }
                    (Err(t), Err(o)) => assert_eq!(
                        matches!(t, cost_engine::Error::Invalid(_)),
                        matches!(o, cost_engine::Error::Invalid(_)),
                        "{scheme} in {container} on {sample}: {t:?} / {o:?}"
                    ),
                    (t, o) => panic!(
                        "{scheme} in {container} on {sample}: host {:?}, page {:?}",
                        t.map(|s| s.bytes),
                        o.map(|s| s.bytes)
                    ),
                }
            }
        }
    }
    assert!(compared > 300, "only {compared} messages compared");
}

#[test]
fn compression_and_random_serializations_are_refused() {
    let err = PageSealer.check("chain:10", Some("schc")).unwrap_err();
    assert!(format!("{err:?}").contains("cannot compress"), "{err:?}");
    let ask = Ask {
        scheme: "aead:aes-128-gcm",
        sample: "random:10",
        serialization: Some("cbor"),
        container: seal::Container::Json.into(),
        compression: None,
    };
    let err = PageSealer.seal(&ask).err().unwrap();
    assert!(format!("{err:?}").contains("random:N"), "{err:?}");
    assert!(PageSealer.check("chain:x", None).is_err());
}
