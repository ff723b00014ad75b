//! One ranking question as values: `recommend`'s flags without the files
//! (`--data-dir`, `--cost-table`) and the store, which the host reads.

use device_facts::Implementation;
use seal::host::container::MessageContainer;

use crate::choices::Need;

#[derive(Clone, Debug)]
pub struct Request {
    pub device: String,
    pub link: String,
    /// The reading (`--sample`): chain:N, record:KB or random:N.
    pub payload: String,
    /// How the reading is serialized (`--serialization`); json when none.
    pub serialization: Option<String>,
    pub min_security: u32,
    pub need: Need,
    pub allow_legacy: bool,
    /// Rank builds whose timing leaks on the device (`--allow-leaky`), marked.
    pub allow_leaky: bool,
    /// The containers ranked (each scheme in each): the container is part of
    /// the choice, as its bytes go on air and its code runs on the device.
    pub containers: Vec<MessageContainer>,
    /// `--compression schc[:RULES]`: the oscore container's rows compressed
    /// too, each beside its uncompressed row.
    pub compression: Option<String>,
    pub battery: String,
    pub interval: String,
    /// Messages per session keyed by a handshake (the host's handshakes,
    /// `rank::Sessions`); none: pre-shared keys only.
    pub session_messages: Option<u64>,
    /// Whose code a scheme may be costed with on a simulated device
    /// (`--impl`); empty means every implementation.
    pub implementations: Vec<Implementation>,
    /// Rank the device's hardware engines too (labelled published).
    pub hardware: bool,
    /// The link protocol's parameters (`--conn-interval`, `--poll-period`,
    /// `--psm`…); default: the stack's, from the link's data.
    pub protocol: energy::protocol::Overrides,
}

/// `--container`: one container, or `all` of them.
pub fn containers(text: &str) -> Result<Vec<MessageContainer>, String> {
    if text == "all" {
        return Ok(MessageContainer::ALL.to_vec());
    }
    text.parse::<MessageContainer>()
        .map(|c| vec![c])
        .map_err(|_| {
            let known = MessageContainer::ALL
                .iter()
                .map(|c| c.as_str())
                .chain(["all"]);
            format!(
                "unknown container '{text}'{}; expected json, binary, cose, oscore or all",
                names::did_you_mean(text, known)
            )
        })
}
