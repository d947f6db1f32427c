//! The data directory of servers before the database (issue 29): a journal
//! (`journal.log`, one JSON line per save) over one file per table
//! (`tables/<id>.json`) and the files of expired tables (`expired/`). It is
//! read once, to be imported into the database, and never written.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{STORE_FORMAT, StoredTable};

/// One line of the old journal.
#[derive(Deserialize)]
enum Entry {
    /// A table's whole record.
    #[serde(rename = "table")]
    Table(StoredTable),
    /// The table expired.
    #[serde(rename = "expire")]
    Expire(String),
}

/// The tables of an old data directory.
pub(super) struct Legacy {
    /// The tables the old server would have resumed, by id.
    pub live: HashMap<String, StoredTable>,
    /// The tables it had closed for idleness, by id.
    pub expired: HashMap<String, StoredTable>,
}

/// Whether `dir` holds data of the old format.
pub(super) fn present(dir: &Path) -> bool {
    dir.join("journal.log").is_file() || dir.join("tables").is_dir() || dir.join("expired").is_dir()
}

/// Reads `dir` as the old server did at start-up (table files, then the
/// journal over them: the record with the most actions wins, an `expire`
/// line closes a table, a torn last line is ignored), without writing
/// anything. Unreadable files and lines are reported on stderr and skipped.
pub(super) fn read(dir: &Path) -> std::io::Result<Legacy> {
    let mut live = load_files(&dir.join("tables"))?;
    let mut expired = load_files(&dir.join("expired"))?;
    let text = match fs::read(dir.join("journal.log")) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e),
    };
    let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').filter(|l| !l.is_empty()).collect();
    let last = lines.len().saturating_sub(1);
    for (i, line) in lines.iter().enumerate() {
        match serde_json::from_slice::<Entry>(line) {
            Ok(Entry::Table(t)) => {
                if !crate::token::is_hex(&t.id, crate::token::ID_BYTES) {
                    eprintln!(
                        "import: journal line {}: a table with id `{}` is not one of this server's, skipped",
                        i + 1,
                        t.id
                    );
                    continue;
                }
                if live.get(&t.id).is_some_and(|k| k.steps() > t.steps()) {
                    continue;
                }
                expired.remove(&t.id);
                live.insert(t.id.clone(), t);
            }
            Ok(Entry::Expire(id)) => {
                if let Some(t) = live.remove(&id) {
                    expired.insert(id, t);
                }
            }
            // A save cut short by a crash: it was never answered.
            Err(_) if i == last => {}
            Err(e) => eprintln!("import: journal line {} skipped: {e}", i + 1),
        }
    }
    expired.retain(|id, _| !live.contains_key(id));
    Ok(Legacy { live, expired })
}

/// The table files of `dir` (none when it does not exist), by id;
/// unreadable files and files named after another table are reported and
/// skipped.
fn load_files(dir: &Path) -> std::io::Result<HashMap<String, StoredTable>> {
    let mut out = HashMap::new();
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(e),
    };
    let mut paths: Vec<PathBuf> = entries.map(|e| e.map(|e| e.path())).collect::<Result<_, _>>()?;
    paths.sort();
    for path in paths {
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let parsed = fs::read(&path)
            .map_err(|e| e.to_string())
            .and_then(|b| serde_json::from_slice::<StoredTable>(&b).map_err(|e| e.to_string()));
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
        match parsed {
            Ok(t) if t.format != STORE_FORMAT => {
                eprintln!(
                    "import: skipping {}: table format {} (this server reads {STORE_FORMAT})",
                    path.display(),
                    t.format
                )
            }
            Ok(t) if t.id != stem => eprintln!(
                "import: refusing {}: it holds table {}, whose file is {}.json (a copy under another name?); \
                 it is not imported",
                path.display(),
                t.id,
                t.id
            ),
            Ok(t) if !crate::token::is_hex(&t.id, crate::token::ID_BYTES) => {
                eprintln!("import: skipping {}: `{}` is not a table id of this server", path.display(), t.id)
            }
            Ok(t) => {
                out.insert(t.id.clone(), t);
            }
            Err(e) => eprintln!("import: skipping {}: {e}", path.display()),
        }
    }
    Ok(out)
}
