//! Persistence: an SQLite database, `<dir>/tables.db` (issue 29).
//!
//! A table is a row of `tables` (its id, game, seats with their secrets,
//! and the kit's game record without its actions) and a row of `heads` (how
//! many actions it has); each of its actions is a row of `actions`,
//! appended at the end of that table (so that the actions of a batch of
//! saves share their pages). A save appends the actions the database does
//! not have yet and updates the count; it does not rewrite the table. The database is in WAL mode with
//! `synchronous=FULL`: a transaction is on disk once it is committed.
//!
//! Every save goes to one committer thread, which owns the connection. It
//! takes every save waiting, writes them all in one transaction (each in a
//! savepoint of its own, so that one refused save does not take the others
//! with it), commits once, and only then answers them — the tables' commits
//! are grouped. A second thread copies the WAL into the database file now
//! and then (a passive checkpoint, which does not stop the committer) and
//! holds the data folder's lock (one server per folder).
//!
//! Every row carries a checksum: a table's covers its id, game, creation
//! time, seats and record; an action's is chained, over the previous row's
//! (a digest of the table's id for the first action), its step and its
//! action id; and `heads` counts them. At start the database must pass
//! `PRAGMA quick_check` (else it is refused and left untouched); then a
//! table whose rows do not match their checksums, or whose record does not
//! replay ([`Store::set_aside`]), is set aside: its status says so and why,
//! its rows are kept, and it is not served.
//!
//! The file is created `0600` (SQLite gives its `-wal` and `-shm` files the
//! same mode) and the folder `0700`: they hold the seats' secrets.

mod legacy;

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::mpsc;

use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::oneshot;

/// The version of a table's stored form ([`StoredTable::format`]).
pub(crate) const STORE_FORMAT: u32 = 1;

/// The database's file name in the data directory.
pub(crate) const DB_FILE: &str = "tables.db";

/// `PRAGMA application_id` of the database: "BGTB".
const APPLICATION_ID: i64 = 0x4247_5442;

/// `PRAGMA user_version`: the schema's version.
const SCHEMA_VERSION: i64 = 1;

/// Most saves grouped into one transaction.
const MAX_BATCH: usize = 4096;

/// How long a statement waits for another connection's lock (a backup, a
/// `sqlite3` shell) before it fails.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// How often the WAL is copied into the database file (off the
/// committer's thread).
const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_millis(250);

/// The WAL file is cut back to this size after it is reset.
const WAL_SIZE_LIMIT: i64 = 64 * 1024 * 1024;

/// How long a server waits for another that holds the data folder's lock
/// (a server stopping, or the same process's previous server closing).
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(20);

/// The schema (documented in `docs/serve.md`).
const SCHEMA: &str = "
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE tables (
    key        INTEGER PRIMARY KEY,
    id         TEXT NOT NULL UNIQUE,
    game       TEXT NOT NULL,
    created    INTEGER NOT NULL,
    seats      TEXT NOT NULL,
    record     TEXT NOT NULL,
    status     TEXT NOT NULL DEFAULT 'live',
    status_why TEXT,
    status_at  INTEGER,
    checksum   INTEGER NOT NULL
);
CREATE TABLE heads (
    table_key INTEGER PRIMARY KEY REFERENCES tables(key),
    steps     INTEGER NOT NULL
);
CREATE TABLE actions (
    seq       INTEGER PRIMARY KEY,
    table_key INTEGER NOT NULL REFERENCES tables(key),
    step      INTEGER NOT NULL,
    action    INTEGER NOT NULL,
    checksum  INTEGER NOT NULL
);
";

/// A seat as kept in the database.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct StoredSeat {
    /// `human` or an agent name (`heuristic`, `ismcts:500`).
    pub kind: String,
    /// The seat's secret, for a human seat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

/// A table as saved and restored: its seats and the kit's game record
/// (engine, versions, config, seed and every action id so far).
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

/// Why the data directory could not be opened.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StoreError {
    /// A file or folder could not be made, read or closed.
    #[error("data directory {}: {source}", path.display())]
    Io {
        /// What was being done to.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// The database is damaged or not this server's; it was not changed.
    #[error(
        "refusing the database {}: {why}. It is left untouched: restore a backup (docs/serve.md, \
         \"Backups\"), or move it away to start with an empty one",
        path.display()
    )]
    Refused {
        /// The database file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// SQLite failed.
    #[error("the database {}: {source}", path.display())]
    Sqlite {
        /// The database file.
        path: PathBuf,
        /// SQLite's error.
        source: rusqlite::Error,
    },
}

impl From<StoreError> for std::io::Error {
    fn from(e: StoreError) -> Self {
        std::io::Error::other(e)
    }
}

/// A save, ready for the committer: the table's row and its actions.
struct Save {
    id: String,
    game: String,
    created: u64,
    /// The seats, as JSON.
    seats: String,
    /// The record without its actions, as JSON.
    record: String,
    actions: Vec<u64>,
}

type Done = oneshot::Sender<Result<(), String>>;

/// What the committer is asked to do.
enum Job {
    Save { save: Save, done: Done },
    Expire { id: String, done: Done },
    SetAside { id: String, why: String, done: Done },
}

/// What [`Store::open`] found in the data directory.
pub(crate) struct Opened {
    pub store: Store,
    /// Every live table whose rows check out, oldest first.
    pub tables: Vec<StoredTable>,
}

/// The database, served by its committer thread.
pub(crate) struct Store {
    tx: mpsc::Sender<Job>,
    committer: Option<std::thread::JoinHandle<()>>,
    /// Stops the checkpointer when dropped.
    stop: mpsc::Sender<()>,
    checkpointer: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Store {
    /// Stops the committer once it has answered every save sent, then the
    /// checkpointer, and waits for both to close the database (so that it
    /// is closed, and the folder's lock released, when the server is
    /// dropped).
    fn drop(&mut self) {
        self.tx = mpsc::channel().0;
        if let Some(committer) = self.committer.take() {
            let _ = committer.join();
        }
        self.stop = mpsc::channel().0;
        if let Some(checkpointer) = self.checkpointer.take() {
            let _ = checkpointer.join();
        }
    }
}

/// Copies the WAL's committed pages into the database file now and then
/// (`PRAGMA wal_checkpoint(PASSIVE)`, which does not stop the committer),
/// so that the committer never waits for a checkpoint. Holds the data
/// folder's lock, and releases it last, once every connection is closed.
fn checkpointer(conn: Connection, lock: Connection, stop: mpsc::Receiver<()>) {
    while let Err(mpsc::RecvTimeoutError::Timeout) = stop.recv_timeout(CHECKPOINT_EVERY) {
        if let Err(e) = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
            eprintln!("database: a checkpoint failed ({e}); the WAL keeps every change meanwhile");
        }
    }
    drop(conn);
    drop(lock);
}

/// 64-bit FNV-1a of `bytes`, from `h`.
fn fnv(h: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(h, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a of each part, each preceded by its length.
fn digest(parts: &[&[u8]]) -> u64 {
    parts.iter().fold(FNV_START, |h, p| fnv(fnv(h, &(p.len() as u64).to_le_bytes()), p))
}

/// The same 64 bits, unsigned.
fn unsigned(n: i64) -> u64 {
    u64::from_le_bytes(n.to_le_bytes())
}

/// SQLite integers are signed: the same 64 bits.
fn signed(h: u64) -> i64 {
    i64::from_le_bytes(h.to_le_bytes())
}

/// The checksum of a table's row.
fn table_checksum(id: &str, game: &str, created: u64, seats: &str, record: &str) -> i64 {
    signed(digest(&[id.as_bytes(), game.as_bytes(), &created.to_le_bytes(), seats.as_bytes(), record.as_bytes()]))
}

/// What a table's first action is chained to: its id (so that a row moved
/// to another table does not check out there).
fn chain_start(id: &str) -> i64 {
    signed(digest(&[id.as_bytes()]))
}

/// The checksum of an action's row, chained to the previous row's.
fn action_checksum(previous: i64, step: u64, action: u64) -> i64 {
    signed(digest(&[&previous.to_le_bytes(), &step.to_le_bytes(), &action.to_le_bytes()]))
}

/// What the committer knows of a live table's rows.
#[derive(Clone, Copy)]
struct Known {
    key: i64,
    steps: u64,
    /// The last action's checksum ([`chain_start`] before any).
    last: i64,
    /// A digest of the seats and record as last written.
    header: u64,
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
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

/// Creates `path` empty and `0600` (replacing a leftover).
fn private_file(path: &Path) -> std::io::Result<()> {
    let mut o = fs::OpenOptions::new();
    o.create(true).write(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    o.open(path)?;
    make_private(path, false)
}

/// The database's path in `dir`.
pub(crate) fn db_path(dir: &Path) -> PathBuf {
    dir.join(DB_FILE)
}

/// Checks an existing database without writing to it: it must be this
/// server's, of a schema it knows, and pass `PRAGMA quick_check`.
fn check(path: &Path) -> Result<(), StoreError> {
    let refused = |why: String| StoreError::Refused { path: path.to_path_buf(), why };
    let len = fs::metadata(path).map_err(|source| StoreError::Io { path: path.to_path_buf(), source })?.len();
    if len == 0 {
        // A new database is written aside and renamed into place whole.
        return Err(refused("the file is empty (cut short?)".into()));
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags).map_err(|e| refused(e.to_string()))?;
    let read = || -> rusqlite::Result<(i64, i64, Vec<String>)> {
        let app: i64 = conn.query_row("PRAGMA application_id", [], |r| r.get(0))?;
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        let mut st = conn.prepare("PRAGMA quick_check")?;
        let problems = st.query_map([], |r| r.get::<_, String>(0))?.collect::<rusqlite::Result<Vec<_>>>()?;
        Ok((app, version, problems))
    };
    let (app, version, problems) = read().map_err(|e| refused(format!("it cannot be read: {e}")))?;
    if app != APPLICATION_ID {
        return Err(refused(format!("it is not a table database of this server (application_id {app:#x})")));
    }
    if version != SCHEMA_VERSION {
        return Err(refused(format!("schema version {version}; this server knows {SCHEMA_VERSION}")));
    }
    if problems != ["ok"] {
        let shown: Vec<&str> = problems.iter().take(5).map(String::as_str).collect();
        return Err(refused(format!("PRAGMA quick_check finds it damaged: {}", shown.join("; "))));
    }
    Ok(())
}

/// Creates an empty database at `path`: written aside, flushed, then
/// renamed into place, so that `path` is never a half-made database.
fn create(dir: &Path, path: &Path) -> Result<(), StoreError> {
    let aside = dir.join(format!("{DB_FILE}.new"));
    let io = |source| StoreError::Io { path: aside.clone(), source };
    for leftover in ["-wal", "-shm", "-journal"] {
        let _ = fs::remove_file(dir.join(format!("{DB_FILE}.new{leftover}")));
    }
    private_file(&aside).map_err(io)?;
    let sql = |source| StoreError::Sqlite { path: aside.clone(), source };
    let conn = Connection::open(&aside).map_err(sql)?;
    conn.pragma_update(None, "application_id", APPLICATION_ID).map_err(sql)?;
    conn.pragma_update(None, "user_version", SCHEMA_VERSION).map_err(sql)?;
    conn.pragma_update(None, "synchronous", "FULL").map_err(sql)?;
    conn.execute_batch(&format!("BEGIN; {SCHEMA} COMMIT;")).map_err(sql)?;
    conn.close().map_err(|(_, e)| sql(e))?;
    fs::File::open(&aside).and_then(|f| f.sync_all()).map_err(io)?;
    fs::rename(&aside, path).map_err(io)?;
    fs::File::open(dir).and_then(|f| f.sync_all()).map_err(|source| StoreError::Io { path: dir.to_path_buf(), source })
}

/// An error of this module's own, among SQLite's.
fn own_error(message: String) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_MISUSE), Some(message))
}

/// Opens `path` for the server: WAL, `synchronous=FULL`.
fn connect(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    let mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(own_error(format!("the database cannot be put in WAL mode (it is in {mode})")));
    }
    conn.pragma_update(None, "synchronous", "FULL")?;
    Ok(conn)
}

/// Takes the data folder's lock: an SQLite file of its own,
/// `tables.db.lock`, held in exclusive locking mode for as long as the
/// returned connection lives. A second server on the same folder (another
/// process, or a server of this one not yet closed) waits for it, then is
/// refused; the database itself stays open to readers (backups, the
/// `sqlite3` shell).
fn lock(dir: &Path, wait: std::time::Duration) -> Result<Connection, StoreError> {
    let path = dir.join(format!("{DB_FILE}.lock"));
    if !path.exists() {
        private_file(&path).map_err(|source| StoreError::Io { path: path.clone(), source })?;
    }
    let sql = |source| StoreError::Sqlite { path: path.clone(), source };
    let conn = Connection::open(&path).map_err(sql)?;
    conn.busy_timeout(wait).map_err(sql)?;
    conn.query_row("PRAGMA locking_mode = EXCLUSIVE", [], |r| r.get::<_, String>(0)).map_err(sql)?;
    let taken = conn.execute_batch(
        "BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS holder (since INTEGER); DELETE FROM holder; \
         INSERT INTO holder VALUES (unixepoch()); COMMIT;",
    );
    match taken {
        Ok(()) => Ok(conn),
        Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy) => Err(StoreError::Refused {
            path: db_path(dir),
            why: format!(
                "another server is using the data folder {} (it held {} for the {:?} this one waited); stop it first",
                dir.display(),
                path.display(),
                wait
            ),
        }),
        Err(e) => Err(sql(e)),
    }
}

/// Opens the database of `dir` (creating the folder `0700` and an empty
/// database `0600`), refusing it if it is damaged (see [`check`]).
fn open_db(dir: &Path) -> Result<(PathBuf, Connection), StoreError> {
    let path = db_path(dir);
    if path.exists() {
        check(&path)?;
    } else {
        create(dir, &path)?;
    }
    for suffix in ["", "-wal", "-shm", ".lock"] {
        let p = dir.join(format!("{DB_FILE}{suffix}"));
        if p.exists() {
            make_private(&p, false).map_err(|source| StoreError::Io { path: p, source })?;
        }
    }
    let conn = connect(&path).map_err(|source| StoreError::Sqlite { path: path.clone(), source })?;
    Ok((path, conn))
}

/// A save's row and actions, from a table.
fn to_save(table: &StoredTable) -> Result<Save, String> {
    let Value::Object(mut record) = table.record.clone() else {
        return Err("the table's record is not a JSON object".into());
    };
    let actions = match record.remove("actions") {
        Some(Value::Array(a)) => {
            a.iter().map(|v| v.as_u64().ok_or_else(|| format!("an action id `{v}` is not a number"))).collect()
        }
        _ => Err("the table's record has no list of actions".to_string()),
    }?;
    Ok(Save {
        id: table.id.clone(),
        game: table.game.clone(),
        created: table.created,
        seats: serde_json::to_string(&table.seats).map_err(|e| e.to_string())?,
        record: Value::Object(record).to_string(),
        actions,
    })
}

/// Writes `save` in the open transaction: the table's row if `known` is
/// `None`, the actions it does not have yet. Returns what is known after.
fn write_save(conn: &Connection, known: Option<Known>, save: &Save, status: &str) -> rusqlite::Result<Known> {
    let header = digest(&[save.seats.as_bytes(), save.record.as_bytes()]);
    let created = i64::try_from(save.created).unwrap_or(i64::MAX);
    let checksum = || table_checksum(&save.id, &save.game, save.created, &save.seats, &save.record);
    let mut k = match known {
        Some(mut k) => {
            if header != k.header {
                conn.prepare_cached("UPDATE tables SET seats = ?1, record = ?2, checksum = ?3 WHERE key = ?4")?
                    .execute(params![save.seats, save.record, checksum(), k.key])?;
                k.header = header;
            }
            k
        }
        None => {
            let sum = checksum();
            conn.prepare_cached(
                "INSERT INTO tables (id, game, created, seats, record, status, status_at, checksum) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?
            .execute(params![
                save.id,
                save.game,
                created,
                save.seats,
                save.record,
                status,
                unix_now(),
                sum
            ])?;
            let key = conn.last_insert_rowid();
            conn.prepare_cached("INSERT INTO heads (table_key, steps) VALUES (?1, 0)")?.execute([key])?;
            Known { key, steps: 0, last: chain_start(&save.id), header }
        }
    };
    let have = usize::try_from(k.steps).unwrap_or(usize::MAX);
    if save.actions.len() < have {
        return Err(own_error(format!(
            "table {}: {have} actions are kept, a save of {} is refused",
            save.id,
            save.actions.len()
        )));
    }
    let new = save.actions.get(have..).unwrap_or_default();
    if !new.is_empty() {
        let mut insert =
            conn.prepare_cached("INSERT INTO actions (table_key, step, action, checksum) VALUES (?1, ?2, ?3, ?4)")?;
        for &action in new {
            let sum = action_checksum(k.last, k.steps, action);
            insert.execute(params![k.key, signed(k.steps), signed(action), sum])?;
            k.last = sum;
            k.steps += 1;
        }
        conn.prepare_cached("UPDATE heads SET steps = ?1 WHERE table_key = ?2")?
            .execute(params![signed(k.steps), k.key])?;
    }
    Ok(k)
}

/// The committer's side of the database.
struct Committer {
    conn: Connection,
    known: HashMap<String, Known>,
}

/// What a job does to the committer's knowledge once committed.
enum After {
    Known(String, Known),
    Forget(String),
    Nothing,
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
            let results = self.commit(&batch);
            for (job, result) in batch.into_iter().zip(results) {
                let (Job::Save { done, .. } | Job::Expire { done, .. } | Job::SetAside { done, .. }) = job;
                let _ = done.send(result);
            }
        }
    }

    /// Writes every job in one transaction; one answer per job.
    fn commit(&mut self, batch: &[Job]) -> Vec<Result<(), String>> {
        let mut answers = Vec::with_capacity(batch.len());
        let mut after = Vec::with_capacity(batch.len());
        let outcome = (|| -> rusqlite::Result<()> {
            let mut tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            // A table's knowledge as this transaction has it so far.
            let mut staged: HashMap<&str, Option<Known>> = HashMap::new();
            for job in batch {
                let sp = tx.savepoint()?;
                let done = match job {
                    Job::Save { save, .. } => {
                        let known =
                            staged.get(save.id.as_str()).copied().unwrap_or_else(|| self.known.get(&save.id).copied());
                        write_save(&sp, known, save, "live").map(|k| {
                            staged.insert(&save.id, Some(k));
                            After::Known(save.id.clone(), k)
                        })
                    }
                    Job::Expire { id, .. } => sp
                        .prepare_cached(
                            "UPDATE tables SET status = 'expired', status_why = NULL, status_at = ?1 \
                             WHERE id = ?2 AND status = 'live'",
                        )
                        .and_then(|mut st| st.execute(params![unix_now(), id]))
                        .map(|_| {
                            staged.insert(id, None);
                            After::Forget(id.clone())
                        }),
                    Job::SetAside { id, why, .. } => sp
                        .prepare_cached(
                            "UPDATE tables SET status = 'set_aside', status_why = ?1, status_at = ?2 \
                             WHERE id = ?3 AND status = 'live'",
                        )
                        .and_then(|mut st| st.execute(params![why, unix_now(), id]))
                        .map(|_| {
                            staged.insert(id, None);
                            After::Forget(id.clone())
                        }),
                };
                match done {
                    Ok(a) => {
                        sp.commit()?;
                        after.push(a);
                        answers.push(Ok(()));
                    }
                    // The savepoint is rolled back when dropped.
                    Err(e) => {
                        after.push(After::Nothing);
                        answers.push(Err(e.to_string()));
                    }
                }
            }
            tx.commit()
        })();
        match outcome {
            Ok(()) => {
                for a in after {
                    match a {
                        After::Known(id, k) => {
                            self.known.insert(id, k);
                        }
                        After::Forget(id) => {
                            self.known.remove(&id);
                        }
                        After::Nothing => {}
                    }
                }
                answers
            }
            Err(e) => {
                let why = format!("the database could not be written: {e}");
                batch.iter().map(|_| Err(why.clone())).collect()
            }
        }
    }
}

/// A table's action rows, in the order they were appended: (step, action,
/// checksum), or why one cannot be read.
type ActionRows = Result<Vec<(u64, u64, i64)>, String>;

/// Reads a live table back from its row and its action rows, checking every
/// checksum; `Err` says why the table cannot be served.
fn read_table(row: &TableRow, rows: Option<&ActionRows>) -> Result<(StoredTable, Known), String> {
    let sum = table_checksum(&row.id, &row.game, row.created, &row.seats, &row.record);
    if sum != row.checksum {
        return Err("its row does not match its checksum (the file was damaged)".into());
    }
    let Some(steps) = row.steps else { return Err("its count of actions (heads) is missing".into()) };
    let rows = match rows {
        Some(Ok(rows)) => rows.as_slice(),
        Some(Err(e)) => return Err(e.clone()),
        None => &[],
    };
    let mut actions = Vec::with_capacity(rows.len());
    let mut last = chain_start(&row.id);
    for (i, &(step, action, checksum)) in rows.iter().enumerate() {
        if step != i as u64 {
            return Err(format!("action {i} is missing (the next row is step {step})"));
        }
        if action_checksum(last, step, action) != checksum {
            return Err(format!("action row {step} does not match its checksum (the file was damaged)"));
        }
        last = checksum;
        actions.push(Value::from(action));
    }
    if actions.len() as u64 != steps {
        return Err(format!("the table counts {steps} actions, {} rows are kept", actions.len()));
    }
    let seats: Vec<StoredSeat> = serde_json::from_str(&row.seats).map_err(|e| format!("its seats: {e}"))?;
    let Ok(Value::Object(mut record)) = serde_json::from_str::<Value>(&row.record) else {
        return Err("its record is not a JSON object".into());
    };
    record.insert("actions".into(), Value::Array(actions));
    let header = digest(&[row.seats.as_bytes(), row.record.as_bytes()]);
    let known = Known { key: row.key, steps, last, header };
    Ok((
        StoredTable {
            format: STORE_FORMAT,
            id: row.id.clone(),
            game: row.game.clone(),
            created: row.created,
            seats,
            record: Value::Object(record),
        },
        known,
    ))
}

/// A row of `tables`, as read.
struct TableRow {
    key: i64,
    id: String,
    game: String,
    created: u64,
    seats: String,
    record: String,
    /// From `heads`.
    steps: Option<u64>,
    checksum: i64,
}

/// Reads every live table; sets aside (and reports) those whose rows do
/// not check out.
fn load(conn: &Connection, path: &Path) -> Result<(Vec<StoredTable>, HashMap<String, Known>), StoreError> {
    let sql = |source| StoreError::Sqlite { path: path.to_path_buf(), source };
    let mut st = conn
        .prepare(
            "SELECT key, id, game, created, seats, record, heads.steps, checksum \
             FROM tables LEFT JOIN heads ON heads.table_key = key \
             WHERE status = 'live' ORDER BY created, id",
        )
        .map_err(sql)?;
    let rows: Vec<rusqlite::Result<TableRow>> = st
        .query_map([], |r| {
            Ok(TableRow {
                key: r.get(0)?,
                id: r.get(1)?,
                game: r.get(2)?,
                created: u64::try_from(r.get::<_, i64>(3)?).unwrap_or_default(),
                seats: r.get(4)?,
                record: r.get(5)?,
                steps: r.get::<_, Option<i64>>(6)?.map(|n| u64::try_from(n).unwrap_or(u64::MAX)),
                checksum: r.get(7)?,
            })
        })
        .map_err(sql)?
        .collect();
    drop(st);
    // Every action row, in the order appended (one pass over the file).
    let mut actions: HashMap<i64, ActionRows> = HashMap::new();
    let mut st = conn.prepare("SELECT table_key, step, action, checksum FROM actions ORDER BY seq").map_err(sql)?;
    let mut scan = st.query([]).map_err(sql)?;
    let mut unreadable = 0u64;
    loop {
        let r = match scan.next() {
            Ok(Some(r)) => r,
            Ok(None) => break,
            Err(e) => {
                eprintln!("database: the action rows cannot be read to their end ({e})");
                break;
            }
        };
        let Ok(key) = r.get::<_, i64>(0) else {
            unreadable += 1;
            continue;
        };
        let fields = (|| Ok::<_, rusqlite::Error>((r.get::<_, i64>(1)?, r.get::<_, i64>(2)?, r.get::<_, i64>(3)?)))();
        let entry = actions.entry(key).or_insert_with(|| Ok(Vec::new()));
        match (fields, entry) {
            (Ok((step, action, sum)), Ok(list)) => list.push((unsigned(step), unsigned(action), sum)),
            (Err(e), entry) => *entry = Err(format!("an action row cannot be read ({e})")),
            (Ok(_), Err(_)) => {}
        }
    }
    drop(scan);
    drop(st);
    if unreadable > 0 {
        eprintln!("database: {unreadable} action rows name no table that can be read; they are not served");
    }
    let mut tables = Vec::new();
    let mut known = HashMap::new();
    let mut aside = Vec::new();
    for row in rows {
        let row = match row {
            Ok(row) => row,
            Err(e) => {
                eprintln!("database: a table's row cannot be read ({e}); it is not served");
                continue;
            }
        };
        match read_table(&row, actions.get(&row.key)) {
            Ok((t, k)) => {
                known.insert(t.id.clone(), k);
                tables.push(t);
            }
            Err(why) => aside.push((row.key, row.id, why)),
        }
    }
    for (key, id, why) in aside {
        eprintln!("table {id}: set aside, not served: {why}; its rows are kept");
        conn.execute(
            "UPDATE tables SET status = 'set_aside', status_why = ?1, status_at = ?2 WHERE key = ?3",
            params![why, unix_now(), key],
        )
        .map_err(sql)?;
    }
    let odd: i64 = conn
        .query_row("SELECT count(*) FROM tables WHERE status NOT IN ('live', 'expired', 'set_aside')", [], |r| r.get(0))
        .map_err(sql)?;
    if odd > 0 {
        eprintln!("database: {odd} tables have a status this server does not know; they are not served");
    }
    Ok((tables, known))
}

/// Imports an old data directory (journal and table files) once; the old
/// files are left in place.
fn import_legacy(conn: &mut Connection, dir: &Path, path: &Path) -> Result<(), StoreError> {
    let sql = |source| StoreError::Sqlite { path: path.to_path_buf(), source };
    let done: Option<String> = conn
        .query_row("SELECT value FROM meta WHERE key = 'legacy_import'", [], |r| r.get(0))
        .optional()
        .map_err(sql)?;
    if done.is_some() || !legacy::present(dir) {
        return Ok(());
    }
    let old = legacy::read(dir).map_err(|source| StoreError::Io { path: dir.to_path_buf(), source })?;
    let tx = conn.transaction().map_err(sql)?;
    let (mut live, mut expired) = (0, 0);
    let mut all: Vec<(&StoredTable, &str)> =
        old.live.values().map(|t| (t, "live")).chain(old.expired.values().map(|t| (t, "expired"))).collect();
    all.sort_by(|a, b| a.0.created.cmp(&b.0.created).then_with(|| a.0.id.cmp(&b.0.id)));
    for (table, status) in all {
        let save = match to_save(table) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("import: table {}: {e}; not imported", table.id);
                continue;
            }
        };
        write_save(&tx, None, &save, status).map_err(sql)?;
        if status == "live" {
            live += 1;
        } else {
            expired += 1;
        }
    }
    let note = format!("{live} live and {expired} expired tables from journal.log, tables/ and expired/");
    tx.execute(
        "INSERT INTO meta (key, value) VALUES ('legacy_import', ?1)",
        params![format!("{note}, at {} (Unix seconds)", unix_now())],
    )
    .map_err(sql)?;
    tx.commit().map_err(sql)?;
    eprintln!(
        "data directory {}: imported {note} into {DB_FILE}; the old files are left in place (and no longer read)",
        dir.display()
    );
    Ok(())
}

impl Store {
    /// Opens (creating) the database of `dir`, imports an old data
    /// directory once, reads every live table back (setting aside those
    /// whose rows do not check out), and starts the committer.
    ///
    /// # Errors
    /// When the folder or the database cannot be made or opened, or the
    /// database fails its checks ([`StoreError::Refused`]; it is not
    /// changed then).
    pub(crate) fn open(dir: &Path) -> Result<Opened, StoreError> {
        private_dir(dir).map_err(|source| StoreError::Io { path: dir.to_path_buf(), source })?;
        let lock = lock(dir, LOCK_WAIT)?;
        let (path, mut conn) = open_db(dir)?;
        import_legacy(&mut conn, dir, &path)?;
        let (tables, known) = load(&conn, &path)?;
        let (tx, rx) = mpsc::channel();
        let sql = |source| StoreError::Sqlite { path: path.clone(), source };
        // Checkpoints are the checkpointer's: the committer only appends.
        conn.query_row("PRAGMA wal_autocheckpoint = 0", [], |_| Ok(())).map_err(sql)?;
        conn.query_row(&format!("PRAGMA journal_size_limit = {WAL_SIZE_LIMIT}"), [], |_| Ok(())).map_err(sql)?;
        let other = connect(&path).map_err(sql)?;
        let (stop, stopped) = mpsc::channel();
        let spawn = |name: &str, f: Box<dyn FnOnce() + Send>| {
            std::thread::Builder::new()
                .name(name.into())
                .spawn(f)
                .map_err(|source| StoreError::Io { path: path.clone(), source })
        };
        let checkpointer = spawn("boardgame-checkpointer", Box::new(move || checkpointer(other, lock, stopped)))?;
        let committer = Committer { conn, known };
        let committer = spawn("boardgame-committer", Box::new(move || committer.run(rx)))?;
        Ok(Opened { store: Store { tx, committer: Some(committer), stop, checkpointer: Some(checkpointer) }, tables })
    }

    async fn ask(&self, job: Job, done: oneshot::Receiver<Result<(), String>>) -> Result<(), String> {
        self.tx.send(job).map_err(|_| "the committer has stopped".to_string())?;
        done.await.map_err(|_| "the committer has stopped".to_string())?
    }

    /// Saves a table: its row the first time, then the actions the
    /// database does not have yet. Done once the transaction is on disk.
    ///
    /// # Errors
    /// Why it could not be written (the table's rows stay as they were).
    pub(crate) async fn save(&self, table: &StoredTable) -> Result<(), String> {
        let save = to_save(table)?;
        let (done, rx) = oneshot::channel();
        self.ask(Job::Save { save, done }, rx).await
    }

    /// Marks a table expired (its rows stay until purged).
    ///
    /// # Errors
    /// Why the mark could not be written.
    pub(crate) async fn expire(&self, id: &str) -> Result<(), String> {
        let (done, rx) = oneshot::channel();
        self.ask(Job::Expire { id: id.to_string(), done }, rx).await
    }

    /// Sets a table aside: it is not served again, its rows are kept, its
    /// status says `why`.
    ///
    /// # Errors
    /// Why the mark could not be written.
    pub(crate) async fn set_aside(&self, id: &str, why: &str) -> Result<(), String> {
        let (done, rx) = oneshot::channel();
        self.ask(Job::SetAside { id: id.to_string(), why: why.to_string(), done }, rx).await
    }
}

/// Deletes the rows of every expired table of the database in `dir`;
/// returns how many tables were purged. Safe while a server runs on it.
///
/// # Errors
/// When the database is missing, damaged ([`StoreError::Refused`]), or
/// cannot be written.
pub(crate) fn purge_expired(dir: &Path) -> Result<usize, StoreError> {
    let path = db_path(dir);
    if !path.exists() {
        return Err(StoreError::Io { path, source: std::io::ErrorKind::NotFound.into() });
    }
    check(&path)?;
    let sql = |source| StoreError::Sqlite { path: path.clone(), source };
    let mut conn = connect(&path).map_err(sql)?;
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(sql)?;
    for rows in ["actions", "heads"] {
        let purge = format!("DELETE FROM {rows} WHERE table_key IN (SELECT key FROM tables WHERE status = 'expired')");
        tx.execute(&purge, []).map_err(sql)?;
    }
    let n = tx.execute("DELETE FROM tables WHERE status = 'expired'", []).map_err(sql)?;
    tx.commit().map_err(sql)?;
    Ok(n)
}

#[cfg(test)]
mod tests;
