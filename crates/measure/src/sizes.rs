//! Message sizes as users type them: `100`, `1KiB`, `128MiB`, `1kB`, `2MB`.

/// Binary units (powers of 1024) and decimal ones (powers of 1000).
const UNITS: &[(&str, u64)] = &[
    ("b", 1),
    ("kib", 1 << 10),
    ("mib", 1 << 20),
    ("gib", 1 << 30),
    ("kb", 1_000),
    ("mb", 1_000_000),
    ("gb", 1_000_000_000),
];

/// The largest size accepted: 4 GiB, beyond any study's range.
pub const MAX_SIZE: u64 = 4 << 30;

/// Parses one size. Units are case-insensitive; a bare number is bytes.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let bad = || {
        format!(
            "bad size '{text}': write a number of bytes with an optional unit: B, KiB, MiB, GiB (x1024) or kB, MB, GB (x1000)"
        )
    };
    if digits.is_empty() {
        return Err(bad());
    }
    let unit = unit.trim().to_ascii_lowercase();
    let factor = if unit.is_empty() {
        1
    } else {
        UNITS
            .iter()
            .find(|(u, _)| *u == unit)
            .map(|(_, f)| *f)
            .ok_or_else(bad)?
    };
    let n: u64 = digits.parse().map_err(|_| bad())?;
    let size = n.checked_mul(factor).ok_or_else(bad)?;
    if size > MAX_SIZE {
        return Err(format!("size '{text}' is above the 4 GiB limit"));
    }
    Ok(size)
}

/// Parses a comma-separated list, keeping the user's order, dropping repeats.
pub fn parse_size_list(text: &str) -> Result<Vec<u64>, String> {
    let mut sizes = Vec::new();
    for part in text.split(',').filter(|p| !p.trim().is_empty()) {
        let size = parse_size(part)?;
        if !sizes.contains(&size) {
            sizes.push(size);
        }
    }
    if sizes.is_empty() {
        return Err(format!("no size in '{text}'"));
    }
    Ok(sizes)
}

/// A size in the largest binary unit that divides it: "16 KiB", "100 B".
pub fn format_size(bytes: u64) -> String {
    for (unit, factor) in [("GiB", 1u64 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] {
        if bytes >= factor && bytes.is_multiple_of(factor) {
            return format!("{} {unit}", bytes / factor);
        }
    }
    format!("{bytes} B")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units() {
        assert_eq!(parse_size("16").unwrap(), 16);
        assert_eq!(parse_size("1KiB").unwrap(), 1024);
        assert_eq!(parse_size("1kib").unwrap(), 1024);
        assert_eq!(parse_size("128MiB").unwrap(), 128 << 20);
        assert_eq!(parse_size("1kB").unwrap(), 1000);
        assert_eq!(parse_size("2MB").unwrap(), 2_000_000);
        assert_eq!(parse_size(" 3 B ").unwrap(), 3);
        assert_eq!(parse_size("0").unwrap(), 0);
    }

    #[test]
    fn refuses_nonsense() {
        for bad in [
            "12XB",
            "",
            "KiB",
            "-5",
            "1.5KiB",
            "99999999999999999999",
            "5GiB",
        ] {
            assert!(parse_size(bad).is_err(), "{bad} accepted");
        }
        assert!(parse_size("12XB").unwrap_err().contains("'12XB'"));
    }

    #[test]
    fn lists_keep_order_and_drop_repeats() {
        assert_eq!(
            parse_size_list("64,16,1KiB,1024").unwrap(),
            vec![64, 16, 1024]
        );
        assert!(parse_size_list(",").is_err());
    }

    #[test]
    fn formats() {
        assert_eq!(format_size(16384), "16 KiB");
        assert_eq!(format_size(100), "100 B");
        assert_eq!(format_size(128 << 20), "128 MiB");
        assert_eq!(format_size(1536), "1536 B");
    }
}
