//! EAX over the byte-wise counter: the one implementation lives in
//! `crates/primitives` (`primitives::Eax`), shared with the sealing core.
//! `aes-*-eax` and the `message-aes-*-eax` schemes use it on every target;
//! `aes-*-eax-crate` keeps the `eax` crate, so the AVR fault stays measured.

pub use primitives::Eax;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::aead::kat;
    use crate::algorithms::vectors::*;

    /// The EAX paper's vector and the counter-carry vectors (computed apart
    /// from RustCrypto), both key sizes, with a forged-tag check (in `kat`).
    #[test]
    fn known_answers_including_the_counter_carry() {
        let mut buf = [0u8; 64];
        kat::<Eax<aes::Aes128>>(&AES128_EAX, &mut buf).unwrap();
        kat::<Eax<aes::Aes128>>(&AES128_EAX_CARRY, &mut buf).unwrap();
        kat::<Eax<aes::Aes256>>(&AES256_EAX, &mut buf).unwrap();
        kat::<Eax<aes::Aes256>>(&AES256_EAX_CARRY, &mut buf).unwrap();
    }
}
