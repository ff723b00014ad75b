//! What a link's own security does (`[link.stack.own]`): its tag per frame,
//! its frame counter, and what it protects and does not. `recommend` costs
//! it as an option when no scheme fits one frame; LoRaWAN's comes from its
//! specification's constants ([`OwnSecurity::lorawan`]).

use serde::{Deserialize, Serialize};

use crate::error::LinkError;
use crate::figure::Figure;
use crate::lorawan_frame::MIC_LEN;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OwnSecurity {
    /// "Sigfox's per-frame MAC and optional payload encryption".
    pub what: String,
    /// Authentication bytes each frame carries (already in its overhead).
    pub tag_bytes: Figure<u32>,
    /// Bits of the frame counter that stops replays.
    pub counter_bits: Figure<u32>,
    pub protects: String,
    pub does_not_protect: String,
}

impl OwnSecurity {
    pub fn validate(&self, who: &str) -> Result<(), LinkError> {
        self.tag_bytes.check(who, "tag_bytes")?;
        self.counter_bits.check(who, "counter_bits")?;
        if self.tag_bytes.value == 0 || self.what.trim().is_empty() {
            return Err(LinkError::Data(format!(
                "{who}: [link.stack.own] needs a tag and a name"
            )));
        }
        Ok(())
    }

    /// LoRaWAN 1.0.x: FRMPayload encrypted under AppSKey, a 4-byte MIC under
    /// NwkSKey, a 16-bit FCnt sent in every frame.
    pub fn lorawan() -> Self {
        OwnSecurity {
            what: "LoRaWAN's FRMPayload encryption (AppSKey) and MIC (NwkSKey)".into(),
            tag_bytes: Figure::sourced(
                MIC_LEN as u32,
                "LoRaWAN 1.0.x §4.4: MIC = aes128_cmac(NwkSKey, B0 | msg)[0..3]",
            ),
            counter_bits: Figure::sourced(
                16,
                "LoRaWAN 1.0.x §4.3.1.5: FCnt, 16 bits in the frame header",
            ),
            protects: "the reading's secrecy (AES-128 under AppSKey, which the application server can hold alone), each frame's integrity and origin as far as the network server (the MIC), replays of old frame counters".into(),
            does_not_protect: "integrity end to end: the network server checks the MIC and strips it, so whoever holds NwkSKey can forge frames the application accepts; the encryption itself carries no tag; ABP devices that reset FCnt reopen replays".into(),
        }
    }
}
