//! The ciphermeter catalogue: every algorithm of the five studies and the
//! modern ones they point to, behind one interface, with several backends.
//!
//! ```
//! let cat = ciphermeter_catalogue::catalogue();
//! let entry = cat.resolve("aes-128-cbc", None).unwrap();
//! let mut cipher = entry.cipher(None, &[0u8; 16]).unwrap();
//! let params = ciphermeter_catalogue::Params { iv: &[0u8; 16], ..Default::default() };
//! let mut out = Vec::new();
//! cipher.encrypt(&params, b"hello", &mut out).unwrap();
//! assert_eq!(out.len(), 16);
//! ```

// With RustCrypto alone (no `native`, `openssl` or `aws-lc`: the cost engine's wasm32
// build) the key-format helpers and the registry's hook the other backends share go unused.
#![cfg_attr(
    not(any(feature = "native", feature = "openssl", feature = "aws-lc")),
    allow(dead_code, unused_imports, unused_variables)
)]

mod asymmetric;
mod backends;
mod baseline;
mod entry;
mod error;
mod keyed;
pub mod listing;
mod lookup;
pub mod mcrypt;
mod ops;
mod padding;
mod registry;
mod rustcrypto;

use std::collections::HashMap;
use std::sync::OnceLock;

pub use asymmetric::known_answers;
pub use entry::{Backend, Entry, Implementation, Kind, Mode, Ops, Status};
pub use error::Error;
pub use ops::{
    AsymOp, AsymmetricScheme, Cipher, Direction, Encapsulated, Hasher, KeyPair, Mac, Padding,
    Params, PrivateKey, PublicKey, Streaming,
};

/// All entries, indexed by canonical id and alias.
pub struct Catalogue {
    entries: Vec<Entry>,
    by_name: HashMap<String, usize>,
}

impl Catalogue {
    fn new(entries: Vec<Entry>) -> Catalogue {
        let mut by_name = HashMap::new();
        for (i, e) in entries.iter().enumerate() {
            for name in std::iter::once(&e.id).chain(&e.aliases) {
                let previous = by_name.insert(name.clone(), i);
                assert!(
                    previous.is_none(),
                    "catalogue table: name '{name}' is used twice"
                );
            }
        }
        Catalogue { entries, by_name }
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The entry with this canonical id or alias (exact, lower case).
    pub fn get(&self, name: &str) -> Option<&Entry> {
        self.by_name.get(name).map(|&i| &self.entries[i])
    }

    /// Resolves a user-typed name: canonical id, alias, any case, or a
    /// libmcrypt name `mcrypt:CIPHER:MODE` whose key size follows `key_len`.
    pub fn resolve(&self, name: &str, key_len: Option<usize>) -> Result<&Entry, Error> {
        lookup::resolve(self, name, key_len)
    }
}

/// The catalogue, built once on first use.
pub fn catalogue() -> &'static Catalogue {
    static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
    CATALOGUE.get_or_init(|| Catalogue::new(registry::build()))
}
