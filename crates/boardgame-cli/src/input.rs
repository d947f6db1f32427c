//! Input files read whole, with a cap on their size: a record for
//! `replay`, results for `merge`. A file (or a device such as `/dev/zero`)
//! larger than its cap is refused with a message naming the cap, after
//! reading at most the cap and one byte more.

use std::io::Read;
use std::path::Path;

use crate::error::CliError;

/// The largest record `boardgame replay` reads: 64 MiB. The longest game
/// of any engine's largest configuration fits: a Caravan game of
/// 1,000,000 turns (C-11.1) has at most 4,000,048 actions, ids of at most 5
/// digits, about 28 MB as JSON.
pub const MAX_RECORD_BYTES: u64 = 64 << 20;

/// The largest result file `boardgame merge` reads: 16 MiB (a result of
/// `simulate --json` is a few kilobytes, its seed ranges included).
pub const MAX_RESULTS_BYTES: u64 = 16 << 20;

/// The text of the file `path` (`what` names it in messages: "record").
///
/// # Errors
/// A runtime error when the file cannot be read, holds more than `limit`
/// bytes, or is not UTF-8 text.
pub fn read_capped(path: &Path, limit: u64, what: &str) -> Result<String, CliError> {
    let name = path.display();
    let too_large =
        || CliError::Runtime(format!("{name}: the {what} is larger than {} (the most a {what} may be)", human(limit)));
    let file = std::fs::File::open(path).map_err(|e| CliError::Runtime(format!("cannot read {name}: {e}")))?;
    if let Ok(meta) = file.metadata()
        && meta.is_file()
        && meta.len() > limit
    {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| CliError::Runtime(format!("cannot read {name}: {e}")))?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    String::from_utf8(bytes).map_err(|e| CliError::Runtime(format!("{name}: the {what} is not UTF-8 text ({e})")))
}

/// `64 MiB` for a whole number of mebibytes, else the bytes.
fn human(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_over_the_cap_is_refused_and_one_at_it_is_read() {
        let dir = std::env::temp_dir().join(format!("boardgame-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("ten.txt");
        std::fs::write(&path, "0123456789").unwrap();
        assert_eq!(read_capped(&path, 10, "record").unwrap(), "0123456789");
        let err = read_capped(&path, 9, "record").unwrap_err();
        assert!(err.message().ends_with("the record is larger than 9 bytes (the most a record may be)"), "{err:?}");
        std::fs::write(&path, [0xff, 0xfe]).unwrap();
        assert!(read_capped(&path, 10, "record").unwrap_err().message().contains("not UTF-8"));
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(human(MAX_RECORD_BYTES), "64 MiB");
    }
}
