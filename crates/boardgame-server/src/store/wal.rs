//! Reads a WAL file as SQLite's file format describes it ("WAL file
//! format", sqlite.org/fileformat2.html), before SQLite opens it: a
//! 32-byte header (magic, version, page size, checkpoint sequence, two
//! salts, a checksum of its first 24 bytes), then frames of a 24-byte
//! header (page number, database size after a commit or 0, the salts, a
//! checksum chained over every frame before) and a page.

/// What a WAL holds.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Wal {
    /// The header's two salts.
    pub salts: (u32, u32),
    /// Commits whose frames all check out, from the start.
    pub commits: u64,
    /// Why the file is damaged: a commit of the current salts follows a
    /// frame that does not check out.
    pub damage: Option<String>,
    /// Bytes after the last intact frame (a torn write at its end).
    pub torn: u64,
}

/// The big-endian word at `at` (0 past the end).
fn word(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4).and_then(|w| w.try_into().ok()).map_or(0, u32::from_be_bytes)
}

fn part(b: &[u8], from: usize, to: usize) -> &[u8] {
    b.get(from..to.min(b.len())).unwrap_or_default()
}

/// SQLite's WAL checksum over `data` (a multiple of 8 bytes), from `s`.
fn checksum(s: (u32, u32), data: &[u8], big: bool) -> (u32, u32) {
    data.chunks_exact(8).fold(s, |(s0, s1), c| {
        let read = |at: usize| if big { word(c, at) } else { word(c, at).swap_bytes() };
        let s0 = s0.wrapping_add(read(0)).wrapping_add(s1);
        let s1 = s1.wrapping_add(read(4)).wrapping_add(s0);
        (s0, s1)
    })
}

/// Commits after the broken frame at `at` whose frames chain on from the
/// checksums stored in the frames before them.
fn lost_commits(b: &[u8], at: usize, frame: usize, salts: (u32, u32), big: bool) -> u64 {
    let mut s = (word(b, at + 16), word(b, at + 20));
    let mut commits = 0;
    let mut at = at + frame;
    while at + frame <= b.len() && (word(b, at + 8), word(b, at + 12)) == salts {
        let f = part(b, at, at + frame);
        let ok = checksum(checksum(s, part(f, 0, 8), big), part(f, 24, frame), big) == (word(f, 16), word(f, 20));
        commits += u64::from(ok && word(f, 4) != 0);
        s = (word(f, 16), word(f, 20));
        at += frame;
    }
    commits
}

/// Reads a WAL's bytes.
pub(crate) fn read(b: &[u8]) -> Wal {
    // A header that does not check out holds no commit for SQLite: what
    // it cost, if anything, the commit counter tells.
    let none = Wal { torn: b.len() as u64, ..Wal::default() };
    let magic = word(b, 0);
    let big = magic & 1 == 1;
    let page = word(b, 8) as usize;
    let mut s = checksum((0, 0), part(b, 0, 24), big);
    if b.len() < 32
        || magic & !1 != 0x377f_0682
        || word(b, 4) != 3_007_000
        || !(512..=65536).contains(&page)
        || !page.is_power_of_two()
        || s != (word(b, 24), word(b, 28))
    {
        return none;
    }
    let salts = (word(b, 16), word(b, 20));
    let mut wal = Wal { salts, ..Wal::default() };
    let frame = 24 + page;
    let mut at = 32;
    let mut intact_end = 32;
    while at + frame <= b.len() {
        let f = part(b, at, at + frame);
        let ours = (word(f, 8), word(f, 12)) == salts;
        if !ours {
            break;
        }
        s = checksum(checksum(s, part(f, 0, 8), big), part(f, 24, frame), big);
        if s != (word(f, 16), word(f, 20)) {
            // SQLite stops here. Frames of a transaction never committed
            // (a write cut by a crash) may follow; but a later commit whose
            // frames chain on from this frame's stored checksum was
            // written after it, and is lost with it.
            let later = lost_commits(b, at, frame, salts, big);
            if later > 0 {
                wal.damage = Some(format!(
                    "frame {} does not match its checksum, and {later} commits written after it are cut off with it",
                    (at - 32) / frame + 1
                ));
            }
            break;
        }
        at += frame;
        if word(f, 4) != 0 {
            wal.commits += 1;
            intact_end = at;
        }
    }
    if wal.damage.is_none() {
        // What follows the last commit: a torn write, or frames of an
        // older round of the WAL (other salts), which SQLite ignores.
        wal.torn = part(b, intact_end, b.len())
            .chunks(frame)
            .take_while(|f| f.len() < 16 || (word(f, 8), word(f, 12)) == salts)
            .map(|f| f.len() as u64)
            .sum();
    }
    wal
}
