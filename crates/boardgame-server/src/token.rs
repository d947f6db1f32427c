//! Secrets from the operating system: seat tokens and table ids.

use std::fmt::Write;

/// Bytes of a seat token: 128 bits.
pub(crate) const TOKEN_BYTES: usize = 16;
/// Bytes of a table id: 64 bits (ids are not secrets, but not enumerable).
pub(crate) const ID_BYTES: usize = 8;

/// `n` random bytes from the operating system, as lowercase hex.
///
/// # Errors
/// When the operating system's generator fails.
pub(crate) fn random_hex(n: usize) -> Result<String, getrandom::Error> {
    let mut bytes = vec![0u8; n];
    getrandom::fill(&mut bytes)?;
    let mut out = String::with_capacity(2 * n);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    Ok(out)
}

/// A random 64-bit seed from the operating system.
///
/// # Errors
/// When the operating system's generator fails.
pub(crate) fn random_seed() -> Result<u64, getrandom::Error> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes)?;
    Ok(u64::from_le_bytes(bytes))
}

/// Compares two strings in time that depends on their lengths only, not on
/// where they first differ.
pub(crate) fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Whether `s` looks like an id or token this server made (lowercase hex of
/// the right length), so that paths and file names built from it are safe.
pub(crate) fn is_hex(s: &str, bytes: usize) -> bool {
    s.len() == 2 * bytes && s.bytes().all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_128_bit_hex_and_differ() {
        let a = random_hex(TOKEN_BYTES).unwrap();
        let b = random_hex(TOKEN_BYTES).unwrap();
        assert_eq!(a.len(), 32);
        assert!(is_hex(&a, TOKEN_BYTES));
        assert_ne!(a, b);
        assert!(same(&a, &a.clone()));
        assert!(!same(&a, &b));
        assert!(!same(&a, &a[..31]));
        assert!(!is_hex("../etc/passwd0000", ID_BYTES));
        assert!(!is_hex("ABCDEF0123456789", ID_BYTES), "uppercase is not an id of ours");
    }
}
