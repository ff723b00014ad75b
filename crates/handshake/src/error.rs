//! Why a handshake cannot be run or costed.

#[derive(Debug, thiserror::Error)]
pub enum HandshakeError {
    /// What the user asked for is malformed or impossible.
    #[error("{0}")]
    Usage(String),
    /// Valid in the standard, but not implemented by what runs it here.
    #[error("{0}")]
    Unsupported(String),
    /// A peer's message did not verify or parse.
    #[error("EDHOC: {0}")]
    Protocol(String),
    /// A message of the responder's that no downlink of the link carries
    /// (`link::downlink`): the handshake cannot run there.
    #[error("{message}: {reason}")]
    Downlink {
        message: &'static str,
        reason: link::LinkError,
    },
    #[error(transparent)]
    Link(#[from] link::LinkError),
}
