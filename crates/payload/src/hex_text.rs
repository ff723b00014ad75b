//! The one hex decoder for everything a user or another command hands us:
//! keys, nonces, readings, FOpts, sealed messages. Either case is accepted
//! (`lorawan decode` and network servers print upper case, we print lower),
//! and white space between digits is ignored, so hex pasted in groups works.

/// Decodes hex text; the error says which character or why.
pub fn decode_hex(text: impl AsRef<[u8]>) -> Result<Vec<u8>, String> {
    let text = text.as_ref();
    let mut out = Vec::with_capacity(text.len() / 2);
    let mut high: Option<u8> = None;
    for (pos, &c) in text.iter().enumerate() {
        let nibble = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            c if c.is_ascii_whitespace() => continue,
            _ => return Err(format!("character {pos} is not a hex digit")),
        };
        match high.take() {
            Some(h) => out.push(h << 4 | nibble),
            None => high = Some(nibble),
        }
    }
    if high.is_some() {
        return Err("an odd number of hex digits".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::decode_hex;

    #[test]
    fn either_case_and_spaces_decode_to_the_same_bytes() {
        let want = vec![0x00, 0xab, 0xcd, 0xef, 0x19];
        assert_eq!(decode_hex("00abcdef19").unwrap(), want);
        assert_eq!(decode_hex("00ABCDEF19").unwrap(), want);
        assert_eq!(decode_hex(" 00 aB cD\nEf 19 ").unwrap(), want);
        assert_eq!(decode_hex("").unwrap(), Vec::<u8>::new());
    }

    #[test]
    fn non_hex_and_odd_lengths_are_errors() {
        assert_eq!(
            decode_hex("00g1").unwrap_err(),
            "character 2 is not a hex digit"
        );
        assert_eq!(
            decode_hex("abc").unwrap_err(),
            "an odd number of hex digits"
        );
        assert_eq!(
            decode_hex("a b c").unwrap_err(),
            "an odd number of hex digits"
        );
    }
}
