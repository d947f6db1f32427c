//! Persistence: one file per table, `<dir>/tables/<id>.json`, rewritten
//! atomically after every action (a temporary file is written and flushed
//! to disk, then renamed over the old one, and the directory is flushed),
//! so a crash at any moment leaves either the previous or the new record,
//! never a torn one. Expired tables move to `<dir>/expired/`.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The version of the table file format.
pub(crate) const STORE_FORMAT: u32 = 1;

/// A seat as kept on disk.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct StoredSeat {
    /// `human` or an agent name (`heuristic`, `ismcts:500`).
    pub kind: String,
    /// The seat's secret, for a human seat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

/// A table as kept on disk: its seats and the kit's game record (engine,
/// versions, config, seed and every action id so far).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct StoredTable {
    /// [`STORE_FORMAT`].
    pub format: u32,
    /// The table id.
    pub id: String,
    /// The engine's name.
    pub game: String,
    /// Creation time, seconds since the Unix epoch.
    pub created: u64,
    /// One entry per seat.
    pub seats: Vec<StoredSeat>,
    /// The kit's `GameRecord`, as JSON.
    pub record: Value,
}

/// The data directory.
#[derive(Clone, Debug)]
pub(crate) struct Store {
    tables: PathBuf,
    expired: PathBuf,
}

impl Store {
    /// Opens (creating) `dir/tables` and `dir/expired`, and removes temporary
    /// files a crash may have left.
    pub(crate) fn open(dir: &Path) -> std::io::Result<Store> {
        let store = Store { tables: dir.join("tables"), expired: dir.join("expired") };
        fs::create_dir_all(&store.tables)?;
        fs::create_dir_all(&store.expired)?;
        for entry in fs::read_dir(&store.tables)? {
            let path = entry?.path();
            if path.extension().is_some_and(|e| e == "tmp") {
                fs::remove_file(&path)?;
            }
        }
        Ok(store)
    }

    fn path(&self, id: &str) -> PathBuf {
        self.tables.join(format!("{id}.json"))
    }

    /// Writes `table` atomically (temp file, flush, rename, flush directory).
    pub(crate) fn save(&self, id: &str, bytes: &[u8]) -> std::io::Result<()> {
        let path = self.path(id);
        let tmp = self.tables.join(format!("{id}.json.tmp"));
        {
            let mut f = fs::File::create(&tmp)?;
            f.write_all(bytes)?;
            f.sync_all()?;
        }
        fs::rename(&tmp, &path)?;
        // The rename is durable once the directory is flushed.
        fs::File::open(&self.tables)?.sync_all()
    }

    /// Moves a table's file out of the way (it will not be resumed).
    pub(crate) fn expire(&self, id: &str) -> std::io::Result<()> {
        let from = self.path(id);
        if from.exists() { fs::rename(from, self.expired.join(format!("{id}.json"))) } else { Ok(()) }
    }

    /// Every table kept, oldest first; unreadable files are reported and
    /// skipped.
    pub(crate) fn load_all(&self) -> std::io::Result<Vec<StoredTable>> {
        let mut out = Vec::new();
        for entry in fs::read_dir(&self.tables)? {
            let path = entry?.path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let parsed = fs::read(&path)
                .map_err(|e| e.to_string())
                .and_then(|b| serde_json::from_slice::<StoredTable>(&b).map_err(|e| e.to_string()));
            match parsed {
                Ok(t) if t.format == STORE_FORMAT => out.push(t),
                Ok(t) => eprintln!(
                    "skipping {}: table format {} (this server reads {STORE_FORMAT})",
                    path.display(),
                    t.format
                ),
                Err(e) => eprintln!("skipping {}: {e}", path.display()),
            }
        }
        out.sort_by_key(|t| t.created);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_replaces_atomically_and_load_skips_garbage() {
        let dir = std::env::temp_dir().join(format!("bg-store-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let store = Store::open(&dir).unwrap();
        let t = StoredTable {
            format: STORE_FORMAT,
            id: "00000000000000aa".into(),
            game: "nim".into(),
            created: 1,
            seats: vec![StoredSeat { kind: "human".into(), token: Some("x".into()) }],
            record: Value::Null,
        };
        store.save(&t.id, &serde_json::to_vec(&t).unwrap()).unwrap();
        store.save(&t.id, &serde_json::to_vec(&t).unwrap()).unwrap();
        fs::write(dir.join("tables/broken.json"), b"{\"format\": 1, \"id\":").unwrap();
        fs::write(dir.join("tables/leftover.json.tmp"), b"half").unwrap();
        let loaded = store.load_all().unwrap();
        assert_eq!(loaded.len(), 1);
        assert_eq!(loaded[0].id, t.id);
        let reopened = Store::open(&dir).unwrap();
        assert!(!dir.join("tables/leftover.json.tmp").exists(), "temporary files are cleaned up");
        reopened.expire(&t.id).unwrap();
        assert!(reopened.load_all().unwrap().is_empty());
        assert!(dir.join("expired/00000000000000aa.json").exists());
        let _ = fs::remove_dir_all(&dir);
    }
}
