//! What a user's `--container` names: one of the core's containers (json,
//! binary, cose), sealed under a key file, or `oscore`, a CoAP message
//! protected with OSCORE under a context file (`host::oscore`).

use std::str::FromStr;

use crate::Container;

use super::error::SealError;

/// A container a message can travel in, as `seal`, `open`, `send` and the
/// gateway take it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MessageContainer {
    /// A message sealed under a sealing key, in one of the core's containers.
    Sealed(Container),
    /// An OSCORE-protected CoAP request (RFC 8613), under a security context.
    Oscore,
}

impl MessageContainer {
    /// Every container, the core's first.
    pub const ALL: [MessageContainer; 4] = [
        MessageContainer::Sealed(Container::Json),
        MessageContainer::Sealed(Container::Binary),
        MessageContainer::Sealed(Container::Cose),
        MessageContainer::Oscore,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            MessageContainer::Sealed(c) => c.as_str(),
            MessageContainer::Oscore => "oscore",
        }
    }

    /// The core's container; `None` for oscore.
    pub fn sealed(self) -> Option<Container> {
        match self {
            MessageContainer::Sealed(c) => Some(c),
            MessageContainer::Oscore => None,
        }
    }

    pub fn is_oscore(self) -> bool {
        self == MessageContainer::Oscore
    }

    /// The core's container, or an error saying that only those apply here
    /// (the same words an unknown name gets).
    pub fn require_sealed(self) -> Result<Container, SealError> {
        self.sealed().ok_or_else(|| unknown(self.as_str()))
    }

    /// Whether the message is text (json); an oscore message is binary CoAP.
    pub fn is_text(self) -> bool {
        self.sealed().is_some_and(Container::is_text)
    }
}

impl From<Container> for MessageContainer {
    fn from(c: Container) -> Self {
        MessageContainer::Sealed(c)
    }
}

impl core::fmt::Display for MessageContainer {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `--container NAME`: the error names the flag and every valid name.
impl FromStr for MessageContainer {
    type Err = SealError;

    fn from_str(text: &str) -> Result<MessageContainer, SealError> {
        if text == "oscore" {
            return Ok(MessageContainer::Oscore);
        }
        Container::from_name(text)
            .map(MessageContainer::Sealed)
            .ok_or_else(|| unknown(text))
    }
}

/// The words `--container` has always refused a name with; the suggestion
/// is among the core's containers.
fn unknown(text: &str) -> SealError {
    SealError::Usage(format!(
        "--container: unknown container '{text}'{}; expected json, binary, cose or oscore",
        names::did_you_mean(text, Container::ALL.iter().map(|c| c.as_str()))
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_bin_is_binary() {
        for c in MessageContainer::ALL {
            assert_eq!(c.as_str().parse::<MessageContainer>().unwrap(), c);
        }
        assert_eq!(
            "bin".parse::<MessageContainer>().unwrap(),
            MessageContainer::Sealed(Container::Binary)
        );
        assert_eq!(MessageContainer::Oscore.sealed(), None);
        assert!(MessageContainer::Oscore.is_oscore());
    }

    #[test]
    fn unknown_names_list_every_container() {
        let err = "jsn".parse::<MessageContainer>().unwrap_err().to_string();
        assert!(
            err.starts_with("--container: unknown container 'jsn'"),
            "{err}"
        );
        assert!(err.contains("did you mean"), "{err}");
        assert!(
            err.ends_with("expected json, binary, cose or oscore"),
            "{err}"
        );
    }

    #[test]
    fn oscore_is_no_sealed_container() {
        let err = MessageContainer::Oscore.require_sealed().unwrap_err();
        assert!(err.is_user_error());
        let text = err.to_string();
        assert!(
            text.starts_with("--container: unknown container 'oscore'"),
            "{text}"
        );
        assert_eq!(
            MessageContainer::Sealed(Container::Cose)
                .require_sealed()
                .unwrap(),
            Container::Cose
        );
    }

    #[test]
    fn only_json_is_text() {
        assert!(MessageContainer::Sealed(Container::Json).is_text());
        assert!(!MessageContainer::Sealed(Container::Cose).is_text());
        assert!(!MessageContainer::Oscore.is_text());
    }
}
