//! The catalogue's table: every algorithm, its metadata and its implementations.
//! Adding an algorithm means one call here plus its vectors in tests/vectors/.

use crate::backends;
use crate::baseline;
use std::sync::Arc;

use crate::entry::{Backend, CipherCtor, Entry, Implementation, Kind, Mode, Ops, Status};
use crate::error::Error;
use crate::rustcrypto::block_modes::{self, Direct, Keystream};
use crate::rustcrypto::{aead, digests, stream};

/// The status of an algorithm and the one-line reason when it is not recommended.
#[derive(Clone, Copy)]
pub(crate) struct Verdict(pub Status, pub Option<&'static str>);

const OK: Verdict = Verdict(Status::Recommended, None);
const SMALL_BLOCK: Verdict = Verdict(
    Status::Legacy,
    Some("64-bit block: birthday collisions after about 32 GB under one key (Sweet32)"),
);

/// A block cipher and the facts shared by its seven mode entries.
struct BlockSpec {
    primitive: &'static str,
    aliases: &'static [&'static str],
    key_sizes: Vec<usize>,
    block: usize,
    security_bits: u32,
    verdict: Verdict,
    provider: &'static str,
    backend: Backend,
}

fn mode_verdict(mode: Mode) -> Verdict {
    match mode {
        Mode::Ecb => Verdict(
            Status::Legacy,
            Some("ECB: equal plaintext blocks give equal ciphertext blocks"),
        ),
        _ => OK,
    }
}

/// The worse of two verdicts; the cipher's reason wins a tie.
fn worse(a: Verdict, b: Verdict) -> Verdict {
    let rank = |s: Status| match s {
        Status::Recommended => 0,
        Status::Legacy => 1,
        Status::Broken => 2,
    };
    if rank(b.0) > rank(a.0) { b } else { a }
}

pub(crate) struct Builder {
    pub entries: Vec<Entry>,
}

impl Builder {
    pub(crate) fn push(&mut self, entry: Entry) {
        self.entries.push(entry);
    }

    /// Adds another backend's implementation to an existing entry.
    pub(crate) fn add_impl(&mut self, id: &str, implementation: Implementation) {
        let entry = self
            .entries
            .iter_mut()
            .find(|e| e.id == id)
            .unwrap_or_else(|| panic!("catalogue table: no entry '{id}' to add a backend to"));
        entry.implementations.push(implementation);
    }

    fn block_cipher<C, K, O8>(&mut self, spec: BlockSpec)
    where
        C: block_modes::BlockPrimitive,
        K: block_modes::ModeInit<C>,
        O8: block_modes::ModeInit<C>,
    {
        self.block_cipher_with(spec, |id, mode| block_modes::ctor::<C, K, O8>(id, mode));
    }

    /// One entry per mode; `make` returns the key-schedule constructor for a mode.
    fn block_cipher_with(&mut self, spec: BlockSpec, make: impl Fn(&str, Mode) -> CipherCtor) {
        for mode in Mode::ALL {
            let id = format!("{}-{}", spec.primitive, mode.as_str());
            let verdict = worse(spec.verdict, mode_verdict(mode));
            let aliases = spec
                .aliases
                .iter()
                .map(|a| format!("{a}-{}", mode.as_str()))
                .collect();
            self.push(Entry {
                aliases,
                kind: Kind::BlockMode,
                primitive: spec.primitive.to_string(),
                mode: Some(mode),
                key_sizes: spec.key_sizes.clone(),
                block_size: Some(spec.block),
                nonce_sizes: if mode.needs_iv() {
                    vec![spec.block]
                } else {
                    vec![]
                },
                tag_size: None,
                output_size: None,
                security_bits: spec.security_bits,
                status: verdict.0,
                status_reason: verdict.1.map(str::to_string),
                implementations: vec![Implementation {
                    backend: spec.backend,
                    provider: spec.provider.to_string(),
                    ops: Ops::Cipher(make(&id, mode)),
                }],
                id,
            });
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn cipher(
        &mut self,
        id: &str,
        aliases: &[&str],
        kind: Kind,
        primitive: &str,
        key_sizes: Vec<usize>,
        nonce_sizes: Vec<usize>,
        tag_size: Option<usize>,
        security_bits: u32,
        verdict: Verdict,
        provider: &str,
        backend: Backend,
        ctor: crate::entry::CipherCtor,
    ) {
        self.push(Entry {
            id: id.to_string(),
            aliases: aliases.iter().map(|s| s.to_string()).collect(),
            kind,
            primitive: primitive.to_string(),
            mode: None,
            key_sizes,
            block_size: None,
            nonce_sizes,
            tag_size,
            output_size: None,
            security_bits,
            status: verdict.0,
            status_reason: verdict.1.map(str::to_string),
            implementations: vec![Implementation {
                backend,
                provider: provider.to_string(),
                ops: Ops::Cipher(ctor),
            }],
        });
    }

    #[allow(clippy::too_many_arguments)]
    fn hash(
        &mut self,
        id: &str,
        aliases: &[&str],
        output: usize,
        security_bits: u32,
        verdict: Verdict,
        provider: &str,
        ctor: crate::entry::HashCtor,
    ) {
        self.push(Entry {
            id: id.to_string(),
            aliases: aliases.iter().map(|s| s.to_string()).collect(),
            kind: Kind::Hash,
            primitive: id.to_string(),
            mode: None,
            key_sizes: vec![],
            block_size: None,
            nonce_sizes: vec![],
            tag_size: None,
            output_size: Some(output),
            security_bits,
            status: verdict.0,
            status_reason: verdict.1.map(str::to_string),
            implementations: vec![Implementation {
                backend: Backend::RustCrypto,
                provider: provider.to_string(),
                ops: Ops::Hash(ctor),
            }],
        });
    }

    #[allow(clippy::too_many_arguments)]
    fn mac(
        &mut self,
        id: &str,
        aliases: &[&str],
        key_sizes: Vec<usize>,
        output: usize,
        security_bits: u32,
        verdict: Verdict,
        provider: &str,
        ctor: crate::entry::MacCtor,
    ) {
        self.push(Entry {
            id: id.to_string(),
            aliases: aliases.iter().map(|s| s.to_string()).collect(),
            kind: Kind::Mac,
            primitive: id.to_string(),
            mode: None,
            key_sizes,
            block_size: None,
            nonce_sizes: vec![],
            tag_size: Some(output),
            output_size: Some(output),
            security_bits,
            status: verdict.0,
            status_reason: verdict.1.map(str::to_string),
            implementations: vec![Implementation {
                backend: Backend::RustCrypto,
                provider: provider.to_string(),
                ops: Ops::Mac(ctor),
            }],
        });
    }
}

type Ctr128<C> = Keystream<ctr::Ctr128BE<C>>;
type Ctr64<C> = Keystream<ctr::Ctr64BE<C>>;
type Ofb8<C> = Direct<primitives::Ofb8<C>>;

fn spec(
    primitive: &'static str,
    aliases: &'static [&'static str],
    key_sizes: Vec<usize>,
    block: usize,
    security_bits: u32,
    verdict: Verdict,
    provider: &'static str,
) -> BlockSpec {
    BlockSpec {
        primitive,
        aliases,
        key_sizes,
        block,
        security_bits,
        verdict,
        provider,
        backend: Backend::RustCrypto,
    }
}

/// Dispatches to the constructor for the key's length.
fn by_key_len(id: &str, ctors: Vec<(usize, CipherCtor)>) -> CipherCtor {
    let id = id.to_string();
    Arc::new(
        move |key: &[u8]| match ctors.iter().find(|(len, _)| *len == key.len()) {
            Some((_, ctor)) => ctor(key),
            None => Err(Error::KeyLength {
                algorithm: id.clone(),
                valid: crate::error::lengths(&ctors.iter().map(|(l, _)| *l).collect::<Vec<_>>()),
                got: key.len(),
            }),
        },
    )
}

fn in_project(mut s: BlockSpec) -> BlockSpec {
    s.backend = Backend::Ciphermeter;
    s
}

fn block_ciphers(b: &mut Builder) {
    use aes::{Aes128, Aes192, Aes256};
    b.block_cipher::<Aes128, Ctr128<Aes128>, Ofb8<Aes128>>(spec(
        "aes-128",
        &["aes128"],
        vec![16],
        16,
        128,
        OK,
        "aes 0.9",
    ));
    b.block_cipher::<Aes192, Ctr128<Aes192>, Ofb8<Aes192>>(spec(
        "aes-192",
        &["aes192"],
        vec![24],
        16,
        192,
        OK,
        "aes 0.9",
    ));
    b.block_cipher::<Aes256, Ctr128<Aes256>, Ofb8<Aes256>>(spec(
        "aes-256",
        &["aes256"],
        vec![32],
        16,
        256,
        OK,
        "aes 0.9",
    ));

    let rijndael = Verdict(
        Status::Legacy,
        Some("Rijndael with a 256-bit block is not standardised; only its 128-bit block is AES"),
    );
    // libmcrypt's rijndael-256 takes the key size from the key: one entry, three key schedules.
    b.block_cipher_with(
        in_project(spec(
            "rijndael-256",
            &[],
            vec![16, 24, 32],
            32,
            256,
            rijndael,
            "ciphermeter",
        )),
        |id, mode| {
            use primitives::{
                Rijndael256K128 as K16, Rijndael256K192 as K24, Rijndael256K256 as K32,
            };
            type Ctr<C> = Direct<primitives::CtrWholeBlock<C>>;
            by_key_len(
                id,
                vec![
                    (16, block_modes::ctor::<K16, Ctr<K16>, Ofb8<K16>>(id, mode)),
                    (24, block_modes::ctor::<K24, Ctr<K24>, Ofb8<K24>>(id, mode)),
                    (32, block_modes::ctor::<K32, Ctr<K32>, Ofb8<K32>>(id, mode)),
                ],
            )
        },
    );

    use serpent::Serpent;
    for (p, k, bits) in [
        ("serpent-128", 16, 128),
        ("serpent-192", 24, 192),
        ("serpent-256", 32, 256),
    ] {
        b.block_cipher::<Serpent, Ctr128<Serpent>, Ofb8<Serpent>>(spec(
            p,
            &[],
            vec![k],
            16,
            bits,
            OK,
            "serpent 0.6",
        ));
    }
    // In-project and table-driven: the twofish crate recomputes its key-dependent S-boxes per block.
    use primitives::{Twofish128 as Tf128, Twofish192 as Tf192, Twofish256 as Tf256};
    b.block_cipher::<Tf128, Ctr128<Tf128>, Ofb8<Tf128>>(in_project(spec(
        "twofish-128",
        &[],
        vec![16],
        16,
        128,
        OK,
        "ciphermeter (table-driven)",
    )));
    b.block_cipher::<Tf192, Ctr128<Tf192>, Ofb8<Tf192>>(in_project(spec(
        "twofish-192",
        &[],
        vec![24],
        16,
        192,
        OK,
        "ciphermeter (table-driven)",
    )));
    b.block_cipher::<Tf256, Ctr128<Tf256>, Ofb8<Tf256>>(in_project(spec(
        "twofish-256",
        &[],
        vec![32],
        16,
        256,
        OK,
        "ciphermeter (table-driven)",
    )));
    type Bf = blowfish::Blowfish;
    b.block_cipher::<Bf, Ctr64<Bf>, Ofb8<Bf>>(spec(
        "bf",
        &["blowfish"],
        (4..=56).collect(),
        8,
        128,
        SMALL_BLOCK,
        "blowfish 0.10",
    ));
    let des_broken = Verdict(
        Status::Broken,
        Some("DES: 56-bit key, brute-forced in 1998 (EFF Deep Crack)"),
    );
    type Des = des::Des;
    b.block_cipher::<Des, Ctr64<Des>, Ofb8<Des>>(spec(
        "des",
        &[],
        vec![8],
        8,
        56,
        des_broken,
        "des 0.9",
    ));
    let tdes = Verdict(
        Status::Legacy,
        Some("3DES: 64-bit block (Sweet32) and 112-bit strength; NIST disallowed it after 2023"),
    );
    type Tdes = des::TdesEde3;
    b.block_cipher::<Tdes, Ctr64<Tdes>, Ofb8<Tdes>>(spec(
        "des-ede3",
        &["3des", "tdes"],
        vec![24],
        8,
        112,
        tdes,
        "des 0.9",
    ));
    let rc2 = Verdict(
        Status::Legacy,
        Some("RC2: 64-bit block and related-key attacks (Kelsey et al. 1997)"),
    );
    type Rc2 = rc2::Rc2;
    b.block_cipher::<Rc2, Ctr64<Rc2>, Ofb8<Rc2>>(spec(
        "rc2",
        &["rc2-128"],
        vec![16],
        8,
        128,
        rc2,
        "rc2 0.9",
    ));
    type Idea = idea::Idea;
    b.block_cipher::<Idea, Ctr64<Idea>, Ofb8<Idea>>(spec(
        "idea",
        &[],
        vec![16],
        8,
        128,
        SMALL_BLOCK,
        "idea 0.6",
    ));
    type Clefia = primitives::Clefia128;
    b.block_cipher::<Clefia, Ctr128<Clefia>, Ofb8<Clefia>>(in_project(spec(
        "clefia-128",
        &[],
        vec![16],
        16,
        128,
        OK,
        "ciphermeter",
    )));
    let present80 = Verdict(
        Status::Legacy,
        Some("80-bit key: below the 112-bit minimum of NIST SP 800-131A; 64-bit block"),
    );
    type P80 = primitives::Present80;
    type P128 = primitives::Present128;
    b.block_cipher::<P80, Ctr64<P80>, Ofb8<P80>>(in_project(spec(
        "present-80",
        &[],
        vec![10],
        8,
        80,
        present80,
        "ciphermeter",
    )));
    b.block_cipher::<P128, Ctr64<P128>, Ofb8<P128>>(in_project(spec(
        "present-128",
        &[],
        vec![16],
        8,
        128,
        SMALL_BLOCK,
        "ciphermeter",
    )));
    type Pi80 = primitives::Piccolo80;
    type Pi128 = primitives::Piccolo128;
    b.block_cipher::<Pi80, Ctr64<Pi80>, Ofb8<Pi80>>(in_project(spec(
        "piccolo-80",
        &[],
        vec![10],
        8,
        80,
        present80,
        "ciphermeter",
    )));
    b.block_cipher::<Pi128, Ctr64<Pi128>, Ofb8<Pi128>>(in_project(spec(
        "piccolo-128",
        &[],
        vec![16],
        8,
        128,
        SMALL_BLOCK,
        "ciphermeter",
    )));
    type S64 = speck_cipher::Speck64_128;
    type S128 = speck_cipher::Speck128_128;
    b.block_cipher::<S64, Ctr64<S64>, Ofb8<S64>>(spec(
        "speck64-128",
        &[],
        vec![16],
        8,
        128,
        SMALL_BLOCK,
        "speck-cipher 0.1",
    ));
    b.block_cipher::<S128, Ctr128<S128>, Ofb8<S128>>(spec(
        "speck128-128",
        &[],
        vec![16],
        16,
        128,
        OK,
        "speck-cipher 0.1",
    ));
    type Xtea = block_modes::Rekeyed<xtea::Xtea>;
    b.block_cipher::<Xtea, Ctr64<Xtea>, Ofb8<Xtea>>(spec(
        "xtea",
        &[],
        vec![16],
        8,
        128,
        SMALL_BLOCK,
        "xtea 0.1",
    ));
    type Cam = camellia::Camellia128;
    b.block_cipher::<Cam, Ctr128<Cam>, Ofb8<Cam>>(spec(
        "camellia-128",
        &[],
        vec![16],
        16,
        128,
        OK,
        "camellia 0.2",
    ));
}

fn stream_ciphers(b: &mut Builder) {
    let rc4 = Verdict(
        Status::Broken,
        Some("RC4: biased keystream; prohibited in TLS by RFC 7465"),
    );
    b.cipher(
        "rc4",
        &["arcfour"],
        Kind::Stream,
        "rc4",
        vec![16],
        vec![],
        None,
        128,
        rc4,
        "rc4 0.2",
        Backend::RustCrypto,
        stream::rc4("rc4"),
    );
    b.cipher(
        "chacha20",
        &[],
        Kind::Stream,
        "chacha20",
        vec![32],
        vec![12],
        None,
        256,
        OK,
        "chacha20 0.10",
        Backend::RustCrypto,
        stream::keyed::<chacha20::ChaCha20>("chacha20"),
    );
    b.cipher(
        "xchacha20",
        &[],
        Kind::Stream,
        "xchacha20",
        vec![32],
        vec![24],
        None,
        256,
        OK,
        "chacha20 0.10",
        Backend::RustCrypto,
        stream::keyed::<chacha20::XChaCha20>("xchacha20"),
    );
    b.cipher(
        "salsa20",
        &[],
        Kind::Stream,
        "salsa20",
        vec![32],
        vec![8],
        None,
        256,
        OK,
        "salsa20 0.11",
        Backend::RustCrypto,
        stream::keyed::<salsa20::Salsa20>("salsa20"),
    );
    b.cipher(
        "xsalsa20",
        &[],
        Kind::Stream,
        "xsalsa20",
        vec![32],
        vec![24],
        None,
        256,
        OK,
        "salsa20 0.11",
        Backend::RustCrypto,
        stream::keyed::<salsa20::XSalsa20>("xsalsa20"),
    );
}

fn aeads(b: &mut Builder) {
    use aes::{Aes128, Aes256};
    let rc = Backend::RustCrypto;
    b.cipher(
        "aes-128-gcm",
        &["aes128-gcm"],
        Kind::Aead,
        "aes-128",
        vec![16],
        vec![12],
        Some(16),
        128,
        OK,
        "aes-gcm 0.11",
        rc,
        aead::keyed::<aes_gcm::Aes128Gcm>("aes-128-gcm"),
    );
    b.cipher(
        "aes-256-gcm",
        &["aes256-gcm"],
        Kind::Aead,
        "aes-256",
        vec![32],
        vec![12],
        Some(16),
        256,
        OK,
        "aes-gcm 0.11",
        rc,
        aead::keyed::<aes_gcm::Aes256Gcm>("aes-256-gcm"),
    );
    b.cipher(
        "aes-128-ccm",
        // COSE 30 (AES-CCM-16-128-128) is this cipher with a 13-byte nonce.
        &["aes-ccm-16-128-128"],
        Kind::Aead,
        "aes-128",
        vec![16],
        (7..=13).collect(),
        Some(16),
        128,
        OK,
        "ccm 0.6",
        rc,
        aead::ccm::<Aes128>("aes-128-ccm"),
    );
    b.cipher(
        "aes-256-ccm",
        &["aes-ccm-16-128-256"],
        Kind::Aead,
        "aes-256",
        vec![32],
        (7..=13).collect(),
        Some(16),
        256,
        OK,
        "ccm 0.6",
        rc,
        aead::ccm::<Aes256>("aes-256-ccm"),
    );
    // COSE's short-tag CCM (RFC 9053 §4.2): 13-byte nonce, 8-byte tag; OSCORE's
    // mandatory AES-CCM-16-64-128 (COSE 10) and its 256-bit sibling (11).
    b.cipher(
        "aes-ccm-16-64-128",
        &[],
        Kind::Aead,
        "aes-128",
        vec![16],
        vec![13],
        Some(8),
        128,
        OK,
        "ccm 0.6",
        rc,
        aead::keyed::<ccm::Ccm<Aes128, ccm::consts::U8, ccm::consts::U13>>("aes-ccm-16-64-128"),
    );
    b.cipher(
        "aes-ccm-16-64-256",
        &[],
        Kind::Aead,
        "aes-256",
        vec![32],
        vec![13],
        Some(8),
        256,
        OK,
        "ccm 0.6",
        rc,
        aead::keyed::<ccm::Ccm<Aes256, ccm::consts::U8, ccm::consts::U13>>("aes-ccm-16-64-256"),
    );
    b.cipher(
        "aes-128-eax",
        &[],
        Kind::Aead,
        "aes-128",
        vec![16],
        vec![16],
        Some(16),
        128,
        OK,
        "eax 0.6",
        rc,
        aead::keyed::<eax::Eax<Aes128>>("aes-128-eax"),
    );
    b.cipher(
        "aes-256-eax",
        &[],
        Kind::Aead,
        "aes-256",
        vec![32],
        vec![16],
        Some(16),
        256,
        OK,
        "eax 0.6",
        rc,
        aead::keyed::<eax::Eax<Aes256>>("aes-256-eax"),
    );
    b.cipher(
        "aes-128-ocb",
        &["aes-128-ocb3"],
        Kind::Aead,
        "aes-128",
        vec![16],
        vec![12],
        Some(16),
        128,
        OK,
        "ocb3 0.2",
        rc,
        aead::keyed::<ocb3::Ocb3<Aes128>>("aes-128-ocb"),
    );
    b.cipher(
        "aes-256-ocb",
        &["aes-256-ocb3"],
        Kind::Aead,
        "aes-256",
        vec![32],
        vec![12],
        Some(16),
        256,
        OK,
        "ocb3 0.2",
        rc,
        aead::keyed::<ocb3::Ocb3<Aes256>>("aes-256-ocb"),
    );
    b.cipher(
        "aes-256-gcm-siv",
        &[],
        Kind::Aead,
        "aes-256",
        vec![32],
        vec![12],
        Some(16),
        256,
        OK,
        "aes-gcm-siv 0.12",
        rc,
        aead::keyed::<aes_gcm_siv::Aes256GcmSiv>("aes-256-gcm-siv"),
    );
    b.cipher(
        "chacha20-poly1305",
        &[],
        Kind::Aead,
        "chacha20",
        vec![32],
        vec![12],
        Some(16),
        256,
        OK,
        "chacha20poly1305 0.11",
        rc,
        aead::keyed::<chacha20poly1305::ChaCha20Poly1305>("chacha20-poly1305"),
    );
    b.cipher(
        "xchacha20-poly1305",
        &[],
        Kind::Aead,
        "xchacha20",
        vec![32],
        vec![24],
        Some(16),
        256,
        OK,
        "chacha20poly1305 0.11",
        rc,
        aead::keyed::<chacha20poly1305::XChaCha20Poly1305>("xchacha20-poly1305"),
    );
    b.cipher(
        "ascon-aead128",
        &["ascon-aead-128"],
        Kind::Aead,
        "ascon",
        vec![16],
        vec![16],
        Some(16),
        128,
        OK,
        "ascon-aead 0.6 (NIST SP 800-232)",
        rc,
        aead::keyed::<ascon_aead::AsconAead128>("ascon-aead128"),
    );
    let v12 = Verdict(
        Status::Legacy,
        Some(
            "Ascon-128 v1.2 (CAESAR, 2019) is superseded by Ascon-AEAD128 of NIST SP 800-232; not interoperable with it",
        ),
    );
    b.cipher(
        "ascon-128-v1.2",
        &["ascon-128", "ascon128v12"],
        Kind::Aead,
        "ascon",
        vec![16],
        vec![16],
        Some(16),
        128,
        v12,
        "ciphermeter",
        Backend::Ciphermeter,
        aead::keyed::<primitives::Ascon128V12>("ascon-128-v1.2"),
    );
    let acorn = Verdict(
        Status::Legacy,
        Some(
            "ACORN-128: CAESAR portfolio cipher, never standardised; state recoverable under nonce reuse",
        ),
    );
    b.cipher(
        "acorn-128",
        &["acorn128"],
        Kind::Aead,
        "acorn",
        vec![16],
        vec![16],
        Some(16),
        128,
        acorn,
        "ciphermeter",
        Backend::Ciphermeter,
        aead::keyed::<primitives::Acorn128>("acorn-128"),
    );
    // The same cipher, word-parallel (32 steps per call, the designers'
    // optimized description): a second implementation is its own entry,
    // since an entry's backends are providers and both are ours. Same vectors.
    let acorn_wide = Verdict(
        Status::Legacy,
        Some(
            "ACORN-128: CAESAR portfolio cipher, never standardised; state recoverable under nonce reuse",
        ),
    );
    b.cipher(
        "acorn-128-wide",
        &["acorn128-wide"],
        Kind::Aead,
        "acorn",
        vec![16],
        vec![16],
        Some(16),
        128,
        acorn_wide,
        "ciphermeter (word-parallel)",
        Backend::Ciphermeter,
        aead::keyed::<primitives::Acorn128Wide>("acorn-128-wide"),
    );
}

fn hashes_and_macs(b: &mut Builder) {
    use hmac::{Hmac, SimpleHmac};
    let sha1 = Verdict(
        Status::Broken,
        Some("SHA-1: chosen-prefix collisions are practical (SHAttered 2017, Shambles 2020)"),
    );
    let md5 = Verdict(
        Status::Broken,
        Some("MD5: collisions in seconds since 2004"),
    );
    b.hash(
        "sha1",
        &["sha-1"],
        20,
        63,
        sha1,
        "sha1 0.11",
        digests::hash::<sha1::Sha1>(),
    );
    b.hash(
        "sha256",
        &["sha-256", "sha2-256"],
        32,
        128,
        OK,
        "sha2 0.11",
        digests::hash::<sha2::Sha256>(),
    );
    b.hash(
        "sha512",
        &["sha-512", "sha2-512"],
        64,
        256,
        OK,
        "sha2 0.11",
        digests::hash::<sha2::Sha512>(),
    );
    b.hash(
        "sha3-256",
        &[],
        32,
        128,
        OK,
        "sha3 0.12",
        digests::hash::<sha3::Sha3_256>(),
    );
    b.hash(
        "sha3-512",
        &[],
        64,
        256,
        OK,
        "sha3 0.12",
        digests::hash::<sha3::Sha3_512>(),
    );
    b.hash(
        "md5",
        &[],
        16,
        18,
        md5,
        "md-5 0.11",
        digests::hash::<md5::Md5>(),
    );
    b.hash(
        "blake2s256",
        &["blake2s-256"],
        32,
        128,
        OK,
        "blake2 0.11",
        digests::hash::<blake2::Blake2s256>(),
    );
    b.hash(
        "blake2b512",
        &["blake2b-512"],
        64,
        256,
        OK,
        "blake2 0.11",
        digests::hash::<blake2::Blake2b512>(),
    );
    b.hash(
        "ascon-hash256",
        &["ascon-hash-256"],
        32,
        128,
        OK,
        "ascon-hash256 0.1",
        digests::hash::<ascon_hash256::AsconHash256>(),
    );

    // HMAC's strength is bounded by its output and, in practice, by the key; a
    // key at least as long as the output is assumed, as RFC 2104 advises.
    let hmac_sha1 = Verdict(
        Status::Legacy,
        Some("HMAC-SHA1 is not broken, but SHA-1 is deprecated (NIST SP 800-131A)"),
    );
    let hmac_md5 = Verdict(
        Status::Legacy,
        Some("HMAC-MD5 is not practically broken, but MD5 is (RFC 6151)"),
    );
    let any = "1 or more";
    b.mac(
        "hmac-sha1",
        &[],
        vec![],
        20,
        128,
        hmac_sha1,
        "hmac 0.13 + sha1",
        digests::mac::<Hmac<sha1::Sha1>>("hmac-sha1", any),
    );
    b.mac(
        "hmac-sha256",
        &[],
        vec![],
        32,
        256,
        OK,
        "hmac 0.13 + sha2",
        digests::mac::<Hmac<sha2::Sha256>>("hmac-sha256", any),
    );
    b.mac(
        "hmac-sha512",
        &[],
        vec![],
        64,
        512,
        OK,
        "hmac 0.13 + sha2",
        digests::mac::<Hmac<sha2::Sha512>>("hmac-sha512", any),
    );
    b.mac(
        "hmac-sha3-256",
        &[],
        vec![],
        32,
        256,
        OK,
        "hmac 0.13 + sha3",
        digests::mac::<SimpleHmac<sha3::Sha3_256>>("hmac-sha3-256", any),
    );
    b.mac(
        "hmac-sha3-512",
        &[],
        vec![],
        64,
        512,
        OK,
        "hmac 0.13 + sha3",
        digests::mac::<SimpleHmac<sha3::Sha3_512>>("hmac-sha3-512", any),
    );
    b.mac(
        "hmac-md5",
        &[],
        vec![],
        16,
        128,
        hmac_md5,
        "hmac 0.13 + md-5",
        digests::mac::<Hmac<md5::Md5>>("hmac-md5", any),
    );
    b.mac(
        "hmac-blake2s256",
        &[],
        vec![],
        32,
        256,
        OK,
        "hmac 0.13 + blake2",
        digests::mac::<SimpleHmac<blake2::Blake2s256>>("hmac-blake2s256", any),
    );
    b.mac(
        "hmac-blake2b512",
        &[],
        vec![],
        64,
        512,
        OK,
        "hmac 0.13 + blake2",
        digests::mac::<SimpleHmac<blake2::Blake2b512>>("hmac-blake2b512", any),
    );
    b.mac(
        "hmac-ascon-hash256",
        &[],
        vec![],
        32,
        256,
        OK,
        "hmac 0.13 + ascon-hash256",
        digests::mac::<SimpleHmac<ascon_hash256::AsconHash256>>("hmac-ascon-hash256", any),
    );
    b.mac(
        "cmac-aes-128",
        &["aes-128-cmac"],
        vec![16],
        16,
        128,
        OK,
        "cmac 0.8",
        digests::mac::<cmac::Cmac<aes::Aes128>>("cmac-aes-128", "16"),
    );
    b.mac(
        "cmac-aes-256",
        &["aes-256-cmac"],
        vec![32],
        16,
        128,
        OK,
        "cmac 0.8",
        digests::mac::<cmac::Cmac<aes::Aes256>>("cmac-aes-256", "32"),
    );
    b.mac(
        "poly1305",
        &[],
        vec![32],
        16,
        128,
        OK,
        "poly1305 0.9 (one-time key)",
        digests::poly1305("poly1305"),
    );
}

fn baseline_entry(b: &mut Builder) {
    b.cipher(
        "identity",
        &["none", "null"],
        Kind::Baseline,
        "identity",
        vec![0],
        vec![],
        None,
        0,
        Verdict(
            Status::Broken,
            Some("no encryption: the harness's floor, for measurement only"),
        ),
        "ciphermeter",
        Backend::Ciphermeter,
        baseline::identity(),
    );
}

/// Builds the whole table. Called once; see `crate::catalogue()`.
pub(crate) fn build() -> Vec<Entry> {
    let mut b = Builder {
        entries: Vec::new(),
    };
    block_ciphers(&mut b);
    stream_ciphers(&mut b);
    aeads(&mut b);
    hashes_and_macs(&mut b);
    crate::asymmetric::register(&mut b);
    baseline_entry(&mut b);
    backends::register(&mut b);
    b.entries
}
