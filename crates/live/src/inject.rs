//! Bad messages on purpose, to test a gateway: `send --inject` mixes them into the stream.
//!
//! Tampering flips one bit of the tag while keeping the container well-formed, so the
//! gateway must count it as tampered (an authentication failure), not as garbage.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use seal::Container;

use crate::error::LiveError;

/// `tampered=10%,replayed=5%,truncated=5%`: the share of each kind of bad message;
/// `lost-fragment=5%`: the share of fragments (`send --link`) the radio loses.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Mix {
    pub tampered: f64,
    pub replayed: f64,
    pub truncated: f64,
    pub lost_fragment: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Good,
    Tampered,
    Replayed,
    Truncated,
}

impl std::str::FromStr for Mix {
    type Err = String;
    fn from_str(text: &str) -> Result<Mix, String> {
        let mut mix = Mix::default();
        for part in text.split(',').filter(|p| !p.is_empty()) {
            let (name, share) = part
                .split_once('=')
                .ok_or_else(|| format!("'{part}': expected KIND=PERCENT%"))?;
            let share: f64 = share
                .trim_end_matches('%')
                .parse()
                .map_err(|_| format!("'{part}': not a percentage"))?;
            if !(0.0..=100.0).contains(&share) {
                return Err(format!("'{part}': percentage must be 0..100"));
            }
            let slot = match name {
                "tampered" => &mut mix.tampered,
                "replayed" => &mut mix.replayed,
                "truncated" => &mut mix.truncated,
                "lost-fragment" => &mut mix.lost_fragment,
                _ => {
                    return Err(format!(
                        "'{name}': expected tampered, replayed, truncated or lost-fragment"
                    ));
                }
            };
            *slot = share / 100.0;
        }
        if mix.tampered + mix.replayed + mix.truncated > 1.0 {
            return Err("shares add up to more than 100%".into());
        }
        Ok(mix)
    }
}

/// Chooses, message by message, what to send; reproducible from the seed.
pub struct Injector {
    mix: Mix,
    rng: ChaCha8Rng,
}

impl Injector {
    pub fn new(mix: Mix, seed: u64) -> Self {
        Injector {
            mix,
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// `can_replay`: whether a good message was sent before (one to replay).
    pub fn next_kind(&mut self, can_replay: bool) -> Kind {
        let x: f64 = self.rng.random();
        let m = self.mix;
        if x < m.tampered {
            Kind::Tampered
        } else if x < m.tampered + m.replayed && can_replay {
            Kind::Replayed
        } else if x >= m.tampered + m.replayed && x < m.tampered + m.replayed + m.truncated {
            Kind::Truncated
        } else {
            Kind::Good
        }
    }

    /// Whether the radio loses the next fragment.
    pub fn loses_fragment(&mut self) -> bool {
        self.mix.lost_fragment > 0.0 && self.rng.random::<f64>() < self.mix.lost_fragment
    }

    pub fn pick(&mut self, below: usize) -> usize {
        self.rng.random_range(0..below.max(1))
    }
}

/// A copy of `message` with one bit of its tag flipped.
pub fn tamper(message: &[u8], container: Container, seed: u64) -> Result<Vec<u8>, LiveError> {
    let bit = 1u8 << (seed % 8);
    let mut out = message.to_vec();
    match container {
        // The tag is the last field of `binary`, and the last bytes of COSE's ciphertext or tag.
        Container::Binary | Container::Cose => {
            let last = out.len() - 1;
            out[last] ^= bit;
        }
        Container::Json => {
            let text = std::str::from_utf8(message)
                .map_err(|_| LiveError::Usage("json message is not UTF-8".into()))?;
            let start = text
                .find("\"tag\":\"")
                .ok_or_else(|| LiveError::Usage("json message without a tag".into()))?
                + 7;
            let len = text[start..]
                .find('"')
                .ok_or_else(|| LiveError::Usage("unterminated tag".into()))?;
            let mut tag = STANDARD
                .decode(&text[start..start + len])
                .map_err(|e| LiveError::Usage(format!("tag: {e}")))?;
            let i = (seed / 8) as usize % tag.len().max(1);
            tag[i] ^= bit;
            let encoded = STANDARD.encode(&tag);
            out.splice(start..start + len, encoded.into_bytes());
        }
    }
    Ok(out)
}

/// The first `keep` bytes (at least 1, fewer than all) of `message`.
pub fn truncate(message: &[u8], keep: usize) -> Vec<u8> {
    let keep = keep.clamp(1, message.len().saturating_sub(1).max(1));
    message[..keep].to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_mixes() {
        let m: Mix = "tampered=10%,replayed=5%,truncated=5%,lost-fragment=5%"
            .parse()
            .unwrap();
        assert_eq!(
            m,
            Mix {
                tampered: 0.10,
                replayed: 0.05,
                truncated: 0.05,
                lost_fragment: 0.05,
            }
        );
        assert!("tampered=80%,replayed=30%".parse::<Mix>().is_err());
        assert!("bogus=1%".parse::<Mix>().is_err());
        assert!("tampered=x".parse::<Mix>().is_err());
    }

    #[test]
    fn shares_come_out_near_the_asked_mix() {
        let mut inj = Injector::new("tampered=10%,replayed=5%,truncated=5%".parse().unwrap(), 1);
        let mut counts = [0usize; 4];
        for _ in 0..20_000 {
            counts[inj.next_kind(true) as usize] += 1;
        }
        // 10 % of 20 000 is 2 000; a seeded draw stays well within ±300.
        assert!((1700..2300).contains(&counts[1]), "{counts:?}");
        assert!((700..1300).contains(&counts[2]), "{counts:?}");
        assert!((700..1300).contains(&counts[3]), "{counts:?}");
    }

    #[test]
    fn tamper_keeps_json_well_formed_and_length() {
        let msg = br#"{"v":1,"scheme":"aead:aes-128-gcm","kid":"00","iv":"AAAAAAAAAAAAAAAA","tag":"AAAAAAAAAAAAAAAAAAAAAA==","data":"AA=="}"#;
        let t = tamper(msg, Container::Json, 9).unwrap();
        assert_eq!(t.len(), msg.len());
        assert_ne!(&t[..], &msg[..]);
        let v: serde_json::Value = serde_json::from_slice(&t).unwrap();
        assert_eq!(v["tag"], "AAIAAAAAAAAAAAAAAAAAAA==");
        assert_eq!(truncate(b"abcdef", 100), b"abcde");
        assert_eq!(truncate(b"abcdef", 0), b"a");
    }
}
