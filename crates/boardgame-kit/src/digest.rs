//! [`Fnv1a`]: the one 64-bit FNV-1a of the Rust code — the weights file's
//! checksum ([`crate::nn`]) and the digests that pinned tests compare (the
//! search agents' root statistics, the heuristics' plans).

/// The 64-bit FNV-1a hash, fed bytes and little-endian integers: the same
/// input gives the same value on every platform. A checksum against
/// corruption, not tampering.
///
/// ```
/// use boardgame_kit::Fnv1a;
/// use std::hash::Hasher;
///
/// let mut h = Fnv1a::new();
/// h.write(b"a");
/// assert_eq!(h.finish(), 0xaf63_dc4c_8601_ec8c); // FNV-1a 64 of "a"
/// assert_eq!(Fnv1a::of(b""), 0xcbf2_9ce4_8422_2325);
/// let mut words = Fnv1a::new();
/// words.write_u64(7);
/// assert_eq!(words.finish(), Fnv1a::of(&7u64.to_le_bytes()));
/// assert_eq!(Fnv1a::of_u64s([7]), words.finish());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fnv1a(u64);

impl Fnv1a {
    /// The offset basis: the hash of no bytes.
    pub const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    /// The 64-bit FNV prime.
    pub const PRIME: u64 = 0x0000_0100_0000_01b3;

    /// A hash of nothing yet.
    pub fn new() -> Self {
        Fnv1a(Self::OFFSET)
    }

    /// The hash of `bytes`.
    pub fn of(bytes: &[u8]) -> u64 {
        let mut h = Fnv1a::new();
        std::hash::Hasher::write(&mut h, bytes);
        h.0
    }

    /// The hash of `words`, each as its 8 little-endian bytes (the digest
    /// the pinned tests take of search statistics).
    pub fn of_u64s(words: impl IntoIterator<Item = u64>) -> u64 {
        let mut h = Fnv1a::new();
        for w in words {
            std::hash::Hasher::write_u64(&mut h, w);
        }
        h.0
    }
}

impl Default for Fnv1a {
    fn default() -> Self {
        Fnv1a::new()
    }
}

impl std::hash::Hasher for Fnv1a {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0 = bytes.iter().fold(self.0, |h, &b| (h ^ u64::from(b)).wrapping_mul(Self::PRIME));
    }

    // Integers as their little-endian bytes, whatever the platform's order
    // (the trait's defaults write them in the native order).
    fn write_u16(&mut self, x: u16) {
        self.write(&x.to_le_bytes());
    }

    fn write_u32(&mut self, x: u32) {
        self.write(&x.to_le_bytes());
    }

    fn write_u64(&mut self, x: u64) {
        self.write(&x.to_le_bytes());
    }
}
