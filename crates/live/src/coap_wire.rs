//! CoAP as both sides of the live link write it (RFC 7252): its port, and a code as
//! the RFC writes it. The messages themselves are `seal::oscore::coap`'s.

/// CoAP's registered UDP port (RFC 7252 §12.6).
pub const DEFAULT_PORT: u16 = 5683;

/// A CoAP code as RFC 7252 writes it: class.detail, e.g. "4.01".
pub fn code_name(code: u8) -> String {
    format!("{}.{:02}", code >> 5, code & 0x1f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use seal::oscore::coap::code;

    #[test]
    fn code_names_read_as_the_rfc_writes_them() {
        assert_eq!(code_name(code::CHANGED), "2.04");
        assert_eq!(code_name(code::UNAUTHORIZED), "4.01");
        assert_eq!(code_name(code::BAD_OPTION), "4.02");
    }
}
