//! Persistence: a journal and one file per table.
//!
//! Every save goes to one committer thread, which appends the whole table
//! record as one line to `<dir>/journal.log`, and flushes the journal to
//! disk once (`fdatasync`) for all the saves that queued up meanwhile — the
//! tables' commits are grouped. A save is answered only once its line is on
//! disk. Now and then (when the journal passes [`CHECKPOINT_BYTES`], and at
//! start-up) the latest record of every table changed since is written to
//! `<dir>/tables/<id>.json` atomically (a temporary file written and
//! flushed, renamed over the old one, the directory flushed) and the journal
//! emptied. On start the table files are read, then the journal laid over
//! them (for each table the record with the most actions wins; a torn last
//! line is ignored). Expired tables are marked in the journal, then their
//! files move to `<dir>/expired/`.
//!
//! Files are created `0600` and the folders `0700` (they hold the seats'
//! secrets).

use std::collections::HashMap;
use std::fs;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::oneshot;

/// The version of the table file format.
pub(crate) const STORE_FORMAT: u32 = 1;

/// The journal's size beyond which its tables are written to their files
/// and it is emptied.
pub(crate) const CHECKPOINT_BYTES: u64 = 32 * 1024 * 1024;

/// Most saves grouped into one flush.
const MAX_BATCH: usize = 4096;

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

impl StoredTable {
    /// The number of actions of its record.
    fn steps(&self) -> usize {
        self.record.get("actions").and_then(Value::as_array).map_or(0, Vec::len)
    }
}

/// One line of the journal.
#[derive(Deserialize)]
enum Entry {
    /// A table's whole record.
    #[serde(rename = "table")]
    Table(StoredTable),
    /// The table expired.
    #[serde(rename = "expire")]
    Expire(String),
}

/// What the committer is asked to do.
enum Job {
    Save { id: String, bytes: Vec<u8>, done: oneshot::Sender<Result<(), String>> },
    Expire { id: String, done: oneshot::Sender<Result<(), String>> },
}

/// What [`Store::open`] found in the data directory.
pub(crate) struct Opened {
    pub store: Store,
    /// Every table kept, oldest first.
    pub tables: Vec<StoredTable>,
}

/// The data directory, served by its committer thread.
pub(crate) struct Store {
    tx: mpsc::Sender<Job>,
}

fn private_file(path: &Path, append: bool) -> std::io::Result<fs::File> {
    let mut o = fs::OpenOptions::new();
    o.create(true).read(true);
    if append {
        o.append(true);
    } else {
        o.write(true).truncate(true);
    }
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    o.open(path)
}

fn make_private(path: &Path, dir: bool) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(path, fs::Permissions::from_mode(if dir { 0o700 } else { 0o600 }))?;
    }
    #[cfg(not(unix))]
    let _ = (path, dir);
    Ok(())
}

fn private_dir(path: &Path) -> std::io::Result<()> {
    let mut b = fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
    b.create(path)?;
    // A folder made by an older server (0755) is closed too.
    make_private(path, true)
}

fn sync_dir(path: &Path) -> std::io::Result<()> {
    fs::File::open(path)?.sync_all()
}

/// Writes `bytes` to `dir/name` atomically, except for the directory flush
/// (the caller flushes `dir` once for many files).
fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = dir.join(format!("{name}.tmp"));
    {
        let mut f = private_file(&tmp, false)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    fs::rename(&tmp, dir.join(name))
}

/// Writes every `(name, bytes)` to `dir` (several threads at once, so that
/// the file system groups their flushes), then flushes `dir`.
fn write_files(dir: &Path, files: &[(String, Vec<u8>)]) -> std::io::Result<()> {
    if files.is_empty() {
        return Ok(());
    }
    let threads = files.len().clamp(1, 8);
    let chunk = files.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = files
            .chunks(chunk)
            .map(|part| s.spawn(move || part.iter().try_for_each(|(name, bytes)| write_file(dir, name, bytes))))
            .collect();
        handles.into_iter().try_for_each(|h| h.join().unwrap_or_else(|_| Err(std::io::Error::other("a writer failed"))))
    })?;
    sync_dir(dir)
}

/// The committer's side of the directory.
struct Committer {
    tables: PathBuf,
    expired: PathBuf,
    journal: fs::File,
    journal_len: u64,
    /// The latest record of each table whose file is older (it is in the
    /// journal only).
    dirty: HashMap<String, Vec<u8>>,
    /// Set when the journal could not be restored after a failed write:
    /// every save fails from then on (nothing would be durable).
    broken: Option<String>,
}

impl Committer {
    fn run(mut self, rx: mpsc::Receiver<Job>) {
        while let Ok(first) = rx.recv() {
            let mut batch = vec![first];
            while batch.len() < MAX_BATCH {
                match rx.try_recv() {
                    Ok(job) => batch.push(job),
                    Err(_) => break,
                }
            }
            let result = self.commit(&batch);
            for job in batch {
                let (Job::Save { done, .. } | Job::Expire { done, .. }) = job;
                let _ = done.send(result.clone());
            }
            if self.journal_len > CHECKPOINT_BYTES
                && let Err(e) = self.checkpoint()
            {
                eprintln!("data directory: could not write the table files ({e}); the journal keeps everything");
            }
        }
    }

    fn commit(&mut self, batch: &[Job]) -> Result<(), String> {
        if let Some(why) = &self.broken {
            return Err(why.clone());
        }
        let mut lines = Vec::new();
        for job in batch {
            match job {
                Job::Save { bytes, .. } => {
                    lines.extend_from_slice(b"{\"table\":");
                    lines.extend_from_slice(bytes);
                    lines.extend_from_slice(b"}\n");
                }
                Job::Expire { id, .. } => {
                    lines.extend_from_slice(serde_json::json!({ "expire": id }).to_string().as_bytes());
                    lines.push(b'\n');
                }
            }
        }
        let written = self.journal.write_all(&lines).and_then(|()| self.journal.sync_data());
        if let Err(e) = written {
            // Take back a partial line, so that the next one starts clean.
            let why = format!("the journal could not be written: {e}");
            if let Err(e2) = self.journal.set_len(self.journal_len).and_then(|()| self.journal.sync_data()) {
                self.broken = Some(format!("{why}; nor restored: {e2}"));
            }
            return Err(why);
        }
        self.journal_len += lines.len() as u64;
        let mut expired = Vec::new();
        for job in batch {
            match job {
                Job::Save { id, bytes, .. } => {
                    self.dirty.insert(id.clone(), bytes.clone());
                }
                Job::Expire { id, .. } => expired.push(id.as_str()),
            }
        }
        if !expired.is_empty()
            && let Err(e) = self.move_expired(&expired)
        {
            // The journal says they expired; the next start moves them.
            eprintln!("data directory: could not move expired tables: {e}");
        }
        Ok(())
    }

    fn move_expired(&mut self, ids: &[&str]) -> std::io::Result<()> {
        let mut latest = Vec::new();
        for id in ids {
            let name = format!("{id}.json");
            let from = self.tables.join(&name);
            if let Some(bytes) = self.dirty.remove(*id) {
                latest.push((name, bytes));
                if from.exists() {
                    fs::remove_file(&from)?;
                }
            } else if from.exists() {
                fs::rename(&from, self.expired.join(&name))?;
            }
        }
        write_files(&self.expired, &latest)?;
        sync_dir(&self.tables)
    }

    /// Writes the journal's tables to their files and empties it.
    fn checkpoint(&mut self) -> std::io::Result<()> {
        let files: Vec<(String, Vec<u8>)> =
            self.dirty.iter().map(|(id, bytes)| (format!("{id}.json"), bytes.clone())).collect();
        write_files(&self.tables, &files)?;
        self.journal.set_len(0)?;
        self.journal.sync_all()?;
        self.journal_len = 0;
        self.dirty.clear();
        Ok(())
    }
}

impl Store {
    /// Opens (creating) `dir`, removes the temporary files a crash may have
    /// left, reads every table back (files, then the journal over them),
    /// writes the journal's tables to their files, and starts the committer.
    ///
    /// A file that cannot be read, or that holds a table other than the one
    /// its name says (a copy under another name), is skipped with a message
    /// on stderr.
    pub(crate) fn open(dir: &Path) -> std::io::Result<Opened> {
        let tables = dir.join("tables");
        let expired = dir.join("expired");
        private_dir(dir)?;
        private_dir(&tables)?;
        private_dir(&expired)?;
        for folder in [&tables, &expired] {
            for entry in fs::read_dir(folder)? {
                let path = entry?.path();
                if path.extension().is_some_and(|e| e == "tmp") {
                    fs::remove_file(&path)?;
                }
            }
        }
        let mut kept = load_files(&tables)?;
        let journal_path = dir.join("journal.log");
        let mut journal = private_file(&journal_path, true)?;
        make_private(&journal_path, false)?;
        let mut text = Vec::new();
        journal.rewind()?;
        journal.read_to_end(&mut text)?;
        let mut changed: HashMap<String, Vec<u8>> = HashMap::new();
        let mut gone = Vec::new();
        let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').filter(|l| !l.is_empty()).collect();
        let last = lines.len().saturating_sub(1);
        for (i, line) in lines.iter().enumerate() {
            match serde_json::from_slice::<Entry>(line) {
                Ok(Entry::Table(t)) => {
                    if !crate::token::is_hex(&t.id, crate::token::ID_BYTES) {
                        eprintln!("journal: a table with id `{}` is not one of this server's, skipped", t.id);
                        continue;
                    }
                    if kept.get(&t.id).is_some_and(|k| k.steps() > t.steps()) {
                        continue;
                    }
                    if let Ok(bytes) = serde_json::to_vec(&t) {
                        changed.insert(t.id.clone(), bytes);
                    }
                    gone.retain(|g| g != &t.id);
                    kept.insert(t.id.clone(), t);
                }
                Ok(Entry::Expire(id)) => {
                    kept.remove(&id);
                    changed.remove(&id);
                    gone.push(id);
                }
                // A save cut short by a crash: it was never answered.
                Err(_) if i == last => {}
                Err(e) => eprintln!("journal: line {} skipped: {e}", i + 1),
            }
        }
        let mut committer = Committer {
            tables: tables.clone(),
            expired,
            journal,
            journal_len: text.len() as u64,
            dirty: changed,
            broken: None,
        };
        let gone: Vec<&str> = gone.iter().map(String::as_str).filter(|g| crate::token::is_hex(g, 8)).collect();
        committer.move_expired(&gone)?;
        committer.checkpoint()?;
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new().name("boardgame-committer".into()).spawn(move || committer.run(rx))?;
        let mut tables: Vec<StoredTable> = kept.into_values().collect();
        tables.sort_by(|a, b| a.created.cmp(&b.created).then_with(|| a.id.cmp(&b.id)));
        Ok(Opened { store: Store { tx }, tables })
    }

    async fn ask(&self, job: Job, done: oneshot::Receiver<Result<(), String>>) -> Result<(), String> {
        self.tx.send(job).map_err(|_| "the committer has stopped".to_string())?;
        done.await.map_err(|_| "the committer has stopped".to_string())?
    }

    /// Saves a table's record (JSON of a [`StoredTable`], one line); done
    /// once it is on disk.
    ///
    /// # Errors
    /// Why it could not be written (the table's previous record stays).
    pub(crate) async fn save(&self, id: &str, bytes: Vec<u8>) -> Result<(), String> {
        let (done, rx) = oneshot::channel();
        self.ask(Job::Save { id: id.to_string(), bytes, done }, rx).await
    }

    /// Marks a table expired and moves its file to `expired/`.
    ///
    /// # Errors
    /// Why the mark could not be written.
    pub(crate) async fn expire(&self, id: &str) -> Result<(), String> {
        let (done, rx) = oneshot::channel();
        self.ask(Job::Expire { id: id.to_string(), done }, rx).await
    }
}

/// The table files of `dir`, by id; unreadable files and files named after
/// another table are reported and skipped.
fn load_files(dir: &Path) -> std::io::Result<HashMap<String, StoredTable>> {
    let mut out = HashMap::new();
    let mut paths: Vec<PathBuf> = fs::read_dir(dir)?.map(|e| e.map(|e| e.path())).collect::<Result<_, _>>()?;
    paths.sort();
    for path in paths {
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let _ = make_private(&path, false);
        let parsed = fs::read(&path)
            .map_err(|e| e.to_string())
            .and_then(|b| serde_json::from_slice::<StoredTable>(&b).map_err(|e| e.to_string()));
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
        match parsed {
            Ok(t) if t.format != STORE_FORMAT => {
                eprintln!("skipping {}: table format {} (this server reads {STORE_FORMAT})", path.display(), t.format)
            }
            Ok(t) if t.id != stem => eprintln!(
                "refusing {}: it holds table {}, whose file is {}.json (a copy under another name?); \
                 it is not resumed — remove it or give it its own id",
                path.display(),
                t.id,
                t.id
            ),
            Ok(t) => {
                out.insert(t.id.clone(), t);
            }
            Err(e) => eprintln!("skipping {}: {e}", path.display()),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(id: &str, actions: usize) -> StoredTable {
        StoredTable {
            format: STORE_FORMAT,
            id: id.into(),
            game: "nim".into(),
            created: 1,
            seats: vec![StoredSeat { kind: "human".into(), token: Some("x".into()) }],
            record: serde_json::json!({ "actions": vec![1; actions] }),
        }
    }

    #[tokio::test]
    async fn saves_survive_reopening_and_load_skips_garbage() {
        let dir = std::env::temp_dir().join(format!("bg-store-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let opened = Store::open(&dir).unwrap();
        assert!(opened.tables.is_empty());
        let t = table("00000000000000aa", 3);
        opened.store.save(&t.id, serde_json::to_vec(&t).unwrap()).await.unwrap();
        opened.store.save(&t.id, serde_json::to_vec(&table(&t.id, 5)).unwrap()).await.unwrap();
        drop(opened);
        // A torn last line (a crash mid-write) is ignored.
        let mut j = fs::OpenOptions::new().append(true).open(dir.join("journal.log")).unwrap();
        j.write_all(b"{\"table\":{\"format\":1,\"id\":\"00000000000000aa\",\"ga").unwrap();
        drop(j);
        fs::write(dir.join("tables/broken.json"), b"{\"format\": 1, \"id\":").unwrap();
        fs::write(dir.join("tables/leftover.json.tmp"), b"half").unwrap();
        let opened = Store::open(&dir).unwrap();
        assert_eq!(opened.tables.len(), 1);
        assert_eq!(opened.tables[0].steps(), 5, "the latest save wins");
        assert!(!dir.join("tables/leftover.json.tmp").exists(), "temporary files are cleaned up");
        assert!(dir.join("tables/00000000000000aa.json").exists(), "the journal was written out at start-up");
        assert_eq!(fs::metadata(dir.join("journal.log")).unwrap().len(), 0);
        opened.store.expire(&t.id).await.unwrap();
        drop(opened);
        let opened = Store::open(&dir).unwrap();
        assert!(opened.tables.is_empty());
        assert!(dir.join("expired/00000000000000aa.json").exists());
        drop(opened);
        let _ = fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn secrets_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("bg-store-perm-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("tables")).unwrap();
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
        let old = table("00000000000000bb", 1);
        fs::write(dir.join("tables/00000000000000bb.json"), serde_json::to_vec(&old).unwrap()).unwrap();
        fs::set_permissions(dir.join("tables/00000000000000bb.json"), fs::Permissions::from_mode(0o644)).unwrap();
        let opened = Store::open(&dir).unwrap();
        let t = table("00000000000000aa", 2);
        opened.store.save(&t.id, serde_json::to_vec(&t).unwrap()).await.unwrap();
        drop(opened);
        let opened = Store::open(&dir).unwrap();
        drop(opened);
        let mode = |p: &str| fs::metadata(dir.join(p)).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(""), 0o700);
        assert_eq!(mode("tables"), 0o700);
        assert_eq!(mode("expired"), 0o700);
        assert_eq!(mode("journal.log"), 0o600);
        assert_eq!(mode("tables/00000000000000aa.json"), 0o600);
        assert_eq!(mode("tables/00000000000000bb.json"), 0o600, "an older server's file is closed too");
        let _ = fs::remove_dir_all(&dir);
    }
}
