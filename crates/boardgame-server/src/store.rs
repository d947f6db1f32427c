//! Persistence: an SQLite database, `<dir>/tables.db` (docs/serve.md,
//! "Persistence" and "Operating it").
//!
//! A table is a row of `tables` (id, game, seats with their secrets, the
//! kit's record without its actions, and `steps`, its count of actions);
//! each action is a row of `actions`, keyed by `(table_key, step)`. Keys
//! and `CHECK` constraints check the rows; a checksum per row catches what
//! SQLite cannot see (a byte flipped inside a value). Every append is
//! conditional on the count the server knows (`UPDATE … WHERE steps =
//! known`), so a second writer is refused instead of forking a history.
//!
//! One thread owns the connection that writes. It takes every save
//! waiting, writes them in one transaction (each in a savepoint), commits
//! once and then answers them (group commit), then notes the database's
//! commit counter in the folder's lock file (see [`files`]).

mod files;
mod wal;

use std::collections::HashMap;
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::oneshot;

pub(crate) use files::{StoreError, db_path};

/// The version of a table's stored form ([`StoredTable::format`]).
pub(crate) const STORE_FORMAT: u32 = 1;

/// Most saves grouped into one transaction.
const MAX_BATCH: usize = 4096;

/// The schema's migrations, in order: the one at index `i` takes a
/// database from `user_version` `i` to `i + 1` (0 is an empty file).
const MIGRATIONS: [&str; 2] = [
    // 1: the first schema.
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
     CREATE TABLE tables (key INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, game TEXT NOT NULL,
         created INTEGER NOT NULL, seats TEXT NOT NULL, record TEXT NOT NULL,
         status TEXT NOT NULL DEFAULT 'live', status_why TEXT, status_at INTEGER, checksum INTEGER NOT NULL);
     CREATE TABLE heads (table_key INTEGER PRIMARY KEY REFERENCES tables(key), steps INTEGER NOT NULL);
     CREATE TABLE actions (seq INTEGER PRIMARY KEY, table_key INTEGER NOT NULL REFERENCES tables(key),
         step INTEGER NOT NULL, action INTEGER NOT NULL, checksum INTEGER NOT NULL);",
    // 2: the count in the table's row, actions keyed by (table_key, step),
    // CHECK constraints, a commit counter.
    "CREATE TABLE tables2 (
         key        INTEGER PRIMARY KEY,
         id         TEXT NOT NULL UNIQUE CHECK (length(id) BETWEEN 1 AND 64),
         game       TEXT NOT NULL CHECK (game <> ''),
         created    INTEGER NOT NULL CHECK (created >= 0),
         seats      TEXT NOT NULL CHECK (json_valid(seats)),
         record     TEXT NOT NULL CHECK (json_valid(record)),
         steps      INTEGER NOT NULL DEFAULT 0 CHECK (steps >= 0),
         status     TEXT NOT NULL DEFAULT 'live' CHECK (status IN ('live', 'expired', 'set_aside')),
         status_why TEXT CHECK ((status = 'set_aside') = (status_why IS NOT NULL)),
         status_at  INTEGER,
         checksum   INTEGER NOT NULL
     );
     INSERT INTO tables2 SELECT key, id, game, created, seats, record,
         coalesce((SELECT steps FROM heads WHERE table_key = key), 0),
         status, CASE WHEN status = 'set_aside' THEN coalesce(status_why, '') END, status_at, checksum FROM tables;
     CREATE TABLE actions2 (
         table_key INTEGER NOT NULL REFERENCES tables2(key),
         step      INTEGER NOT NULL CHECK (step >= 0),
         action    INTEGER NOT NULL,
         checksum  INTEGER NOT NULL,
         PRIMARY KEY (table_key, step)
     ) WITHOUT ROWID;
     INSERT OR IGNORE INTO actions2 SELECT table_key, step, action, checksum FROM actions ORDER BY seq;
     DROP TABLE actions; DROP TABLE heads; DROP TABLE tables;
     ALTER TABLE tables2 RENAME TO tables; ALTER TABLE actions2 RENAME TO actions;
     DELETE FROM meta WHERE key = 'legacy_import';
     INSERT OR REPLACE INTO meta (key, value) VALUES ('commits', '0');",
];

/// The schema's version now.
const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

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

/// A table that is not served.
#[derive(Clone, Debug)]
pub(crate) struct SetAside {
    /// Why it was set aside.
    pub why: String,
}

/// A save: the table's row and actions, and how many actions the server
/// knows to be saved (`None`: a new table).
struct Save {
    id: String,
    game: String,
    created: u64,
    seats: String,
    record: String,
    actions: Vec<u64>,
    known: Option<u64>,
}

/// Why a save was refused.
#[derive(Debug, thiserror::Error)]
enum SaveError {
    /// SQLite's.
    #[error("{0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The database's count is not the one this server knows.
    #[error(
        "the database does not hold {known} actions of table {id} as this server does: another server writes to the \
         same data folder, or the table was set aside"
    )]
    Moved { id: String, known: u64 },
    /// A save of fewer actions than kept.
    #[error("table {id}: {known} actions are kept, a save of {got} is refused")]
    Shorter { id: String, known: u64, got: usize },
}

type Done = oneshot::Sender<Result<(), String>>;

/// What the writer is asked to do.
enum Job {
    Save(Save),
    Status { id: String, status: &'static str, why: Option<String> },
}

/// What [`Store::open`] found in the data directory.
pub(crate) struct Opened {
    pub store: Store,
    /// Every live table whose rows check out, oldest first.
    pub tables: Vec<StoredTable>,
    /// Every table set aside, by id.
    pub aside: HashMap<String, SetAside>,
}

/// The database, written by its writer thread.
pub(crate) struct Store {
    tx: mpsc::Sender<(Job, Done)>,
    writer: Option<std::thread::JoinHandle<()>>,
    /// Stops the checkpointer when dropped.
    stop: mpsc::Sender<()>,
    checkpointer: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Store {
    /// Stops the checkpointer, then the writer once it has answered every
    /// save sent, and waits for it to close the database (the last
    /// connection: the WAL is emptied) and release the folder.
    fn drop(&mut self) {
        self.stop = mpsc::channel().0;
        if let Some(c) = self.checkpointer.take() {
            let _ = c.join();
        }
        self.tx = mpsc::channel().0;
        if let Some(w) = self.writer.take() {
            let _ = w.join();
        }
    }
}

/// 64-bit FNV-1a (the kit's [`Fnv1a`](boardgame_kit::Fnv1a)) of each
/// part, each preceded by its length as 8 little-endian bytes.
fn digest(parts: &[&[u8]]) -> i64 {
    use std::hash::Hasher;
    let mut h = boardgame_kit::Fnv1a::new();
    for p in parts {
        h.write_u64(p.len() as u64);
        h.write(p);
    }
    i64::from_le_bytes(h.finish().to_le_bytes())
}

fn table_checksum(id: &str, game: &str, created: u64, seats: &str, record: &str) -> i64 {
    digest(&[id.as_bytes(), game.as_bytes(), &created.to_le_bytes(), seats.as_bytes(), record.as_bytes()])
}

/// An action row's checksum, chained to the previous row's (the digest of
/// the table's id before the first).
fn action_checksum(previous: i64, step: u64, action: u64) -> i64 {
    digest(&[&previous.to_le_bytes(), &step.to_le_bytes(), &action.to_le_bytes()])
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// The 64 bits of an SQLite integer, unsigned, and back.
fn unsigned(n: i64) -> u64 {
    u64::from_le_bytes(n.to_le_bytes())
}
fn signed(n: u64) -> i64 {
    i64::from_le_bytes(n.to_le_bytes())
}

/// Takes the database to [`SCHEMA_VERSION`], one migration per
/// transaction. A database newer than this server is refused.
fn migrate(conn: &mut Connection) -> Result<i64, String> {
    let from: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(|e| e.to_string())?;
    if from > SCHEMA_VERSION {
        return Err(format!(
            "its schema version is {from}; this server knows up to {SCHEMA_VERSION}: run a newer server"
        ));
    }
    for (v, sql) in MIGRATIONS.iter().enumerate().skip(usize::try_from(from).unwrap_or(0)) {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(|e| e.to_string())?;
        tx.execute_batch(sql)
            .and_then(|()| tx.pragma_update(None, "user_version", v + 1))
            .and_then(|()| tx.commit())
            .map_err(|e| format!("migrating its schema from version {v} to {} failed: {e}", v + 1))?;
    }
    Ok(from)
}

/// A save's rows, from a table.
fn to_save(table: &StoredTable, known: Option<u64>) -> Result<Save, String> {
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
        known,
    })
}

/// Writes a save: the table's row (inserted, or updated only if its count
/// is the one known), then its new actions.
fn write_save(conn: &Connection, s: &Save) -> Result<(), SaveError> {
    let sum = table_checksum(&s.id, &s.game, s.created, &s.seats, &s.record);
    let known = s.known.unwrap_or(0);
    let new = s.actions.get(usize::try_from(known).unwrap_or(usize::MAX)..).ok_or_else(|| SaveError::Shorter {
        id: s.id.clone(),
        known,
        got: s.actions.len(),
    })?;
    let steps = signed(s.actions.len() as u64);
    let key: i64 = match s.known {
        None => {
            conn.prepare_cached(
                "INSERT INTO tables (id, game, created, seats, record, steps, status_at, checksum) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?
            .execute(params![
                s.id,
                s.game,
                signed(s.created),
                s.seats,
                s.record,
                steps,
                unix_now(),
                sum
            ])?;
            conn.last_insert_rowid()
        }
        Some(known) => conn
            .prepare_cached(
                "UPDATE tables SET seats = ?1, record = ?2, checksum = ?3, steps = ?4 \
                 WHERE id = ?5 AND status = 'live' AND steps = ?6 RETURNING key",
            )?
            .query_row(params![s.seats, s.record, sum, steps, s.id, signed(known)], |r| r.get(0))
            .optional()?
            .ok_or_else(|| SaveError::Moved { id: s.id.clone(), known })?,
    };
    if new.is_empty() {
        return Ok(());
    }
    let mut last = if known == 0 {
        digest(&[s.id.as_bytes()])
    } else {
        conn.prepare_cached("SELECT checksum FROM actions WHERE table_key = ?1 AND step = ?2")?
            .query_row(params![key, signed(known - 1)], |r| r.get(0))?
    };
    let mut insert =
        conn.prepare_cached("INSERT INTO actions (table_key, step, action, checksum) VALUES (?1, ?2, ?3, ?4)")?;
    for (step, &action) in (known..).zip(new) {
        last = action_checksum(last, step, action);
        insert.execute(params![key, signed(step), signed(action), last])?;
    }
    Ok(())
}

/// How long a kind of refused save stays quiet after it was logged.
const QUIET_FOR: Duration = Duration::from_secs(10);

/// Logs a refused save once per kind per [`QUIET_FOR`], with how many
/// there were: for each kind, when it was last logged and how many have
/// been refused since.
#[derive(Default)]
struct Quiet(HashMap<String, (Option<Instant>, u64)>);

impl Quiet {
    /// The line to log for a save of `kind` refused at `now`, if one is
    /// due: the first of its kind, then the first at least [`QUIET_FOR`]
    /// after the last line, counting those refused since.
    fn line(&mut self, now: Instant, kind: &str, message: &str) -> Option<String> {
        let (last, n) = self.0.entry(kind.to_string()).or_insert((None, 0));
        *n += 1;
        let since = last.map(|l| now.saturating_duration_since(l));
        if since.is_some_and(|s| s < QUIET_FOR) {
            return None;
        }
        let more = match since {
            Some(s) if *n > 1 => format!(" ({n} saves refused this way in the last {} s)", s.as_secs()),
            _ => String::new(),
        };
        (*last, *n) = (Some(now), 0);
        Some(format!("database: a save was refused: {message}{more}"))
    }

    fn log(&mut self, kind: &str, message: &str) {
        if let Some(line) = self.line(Instant::now(), kind, message) {
            eprintln!("{line}");
        }
    }
}

/// How often the checkpointer copies the WAL into the database.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(250);

type Folder = std::sync::Arc<std::sync::Mutex<files::Folder>>;

fn folder(f: &Folder) -> std::sync::MutexGuard<'_, files::Folder> {
    f.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The checkpointer thread: copies the WAL into the database now and then
/// (`PRAGMA wal_checkpoint(PASSIVE)`, which neither waits for readers nor
/// holds the writer up), noted in the lock file around each. Warns when a
/// reader has kept it from completing for `warn_after`.
fn checkpointer(conn: Connection, f: Folder, stop: mpsc::Receiver<()>, warn_after: Duration) {
    // Since when checkpoints stopped completing, and the last warning.
    let mut stuck: Option<(Instant, Instant)> = None;
    while let Err(mpsc::RecvTimeoutError::Timeout) = stop.recv_timeout(CHECKPOINT_EVERY) {
        if folder(&f).wal_len() == 0 {
            continue;
        }
        let done =
            conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| Ok(r.get::<_, i64>(2)? >= r.get::<_, i64>(1)?));
        folder(&f).checkpointed();
        let now = Instant::now();
        match done {
            Ok(true) => stuck = None,
            Ok(false) => {
                let (since, warned) = *stuck.get_or_insert((now, now));
                if now - since >= warn_after && (now - warned >= warn_after || warned == since) {
                    eprintln!(
                        "database: for {} s a reader (a backup, an sqlite3 shell left open) has kept tables.db-wal \
                         from being copied into tables.db; it is {} MiB and grows until that reader ends its \
                         transaction",
                        (now - since).as_secs(),
                        folder(&f).wal_len() >> 20
                    );
                    stuck = Some((since, now));
                }
            }
            Err(e) => eprintln!("database: a checkpoint failed ({}); the WAL keeps every change", files::explain(&e)),
        }
    }
}

/// The writer thread: group commits until the channel closes, then a
/// clean close.
fn writer(mut conn: Connection, f: Folder, rx: mpsc::Receiver<(Job, Done)>) {
    let mut quiet = Quiet::default();
    while let Ok(first) = rx.recv() {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH
            && let Ok(job) = rx.try_recv()
        {
            batch.push(job);
        }
        let mut answers = Vec::with_capacity(batch.len());
        let outcome = (|| -> rusqlite::Result<i64> {
            let mut tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            for (job, _) in &batch {
                let sp = tx.savepoint()?;
                let done = match job {
                    Job::Save(save) => write_save(&sp, save),
                    Job::Status { id, status, why } => sp
                        .prepare_cached(
                            "UPDATE tables SET status = ?1, status_why = ?2, status_at = ?3 WHERE id = ?4 AND status = 'live'",
                        )
                        .and_then(|mut st| st.execute(params![status, why, unix_now(), id]))
                        .map(drop)
                        .map_err(SaveError::from),
                };
                answers.push(match done {
                    Ok(()) => sp.commit().map_err(|e| e.to_string()),
                    Err(e) => {
                        let kind = match &e {
                            SaveError::Sqlite(e) => format!("{:?}", e.sqlite_error_code()),
                            other => format!("{:?}", std::mem::discriminant(other)),
                        };
                        quiet.log(&kind, &e.to_string());
                        Err(e.to_string())
                    }
                });
            }
            let n = tx.query_row(
                "UPDATE meta SET value = value + 1 WHERE key = 'commits' RETURNING CAST(value AS INTEGER)",
                [],
                |r| r.get(0),
            )?;
            tx.commit()?;
            Ok(n)
        })();
        match outcome {
            Ok(commits) => folder(&f).note(commits, false),
            Err(e) => {
                let why = format!("the database could not be written: {}", files::explain(&e));
                quiet.log(&format!("{:?}", e.sqlite_error_code()), &why);
                answers = batch.iter().map(|_| Err(why.clone())).collect();
            }
        }
        for ((_, done), answer) in batch.into_iter().zip(answers) {
            let _ = done.send(answer);
        }
    }
    let commits = conn.query_row("SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'commits'", [], |r| r.get(0));
    // A clean close checkpoints the WAL into the file and removes it (not
    // while a reader holds it).
    match (conn.close(), commits) {
        (Ok(()), Ok(n)) => {
            let mut f = folder(&f);
            let stopped = f.wal_len() == 0;
            f.note(n, stopped);
        }
        (Err((_, e)), _) | (_, Err(e)) => eprintln!("database: closing it failed ({e}); the next start checks it"),
    }
}

/// A table's action rows: (step, action, checksum).
type ActionRows = Vec<(u64, u64, i64)>;

/// The columns of `tables` that [`table_row`] reads.
const TABLE_COLUMNS: &str = "key, id, game, created, seats, record, steps, status, status_why, checksum";

fn table_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<TableRow> {
    Ok(TableRow {
        key: r.get(0)?,
        id: r.get(1)?,
        game: r.get(2)?,
        created: unsigned(r.get(3)?),
        seats: r.get(4)?,
        record: r.get(5)?,
        steps: unsigned(r.get(6)?),
        status: r.get(7)?,
        why: r.get(8)?,
        checksum: r.get(9)?,
    })
}

/// A row of `tables`, as read.
struct TableRow {
    key: i64,
    id: String,
    game: String,
    created: u64,
    seats: String,
    record: String,
    steps: u64,
    status: String,
    why: Option<String>,
    checksum: i64,
}

/// Checks a table's rows: the table, and its actions up to the first that
/// does not check out (or is missing). `Err` holds why, and the record up
/// to that step if the table's own row checks out.
fn read_table(row: &TableRow, actions: &[(u64, u64, i64)]) -> Result<StoredTable, (String, Option<Value>)> {
    if table_checksum(&row.id, &row.game, row.created, &row.seats, &row.record) != row.checksum {
        return Err(("its row does not match its checksum (the file was damaged)".into(), None));
    }
    let seats: Vec<StoredSeat> = serde_json::from_str(&row.seats).map_err(|e| (format!("its seats: {e}"), None))?;
    let Ok(Value::Object(mut record)) = serde_json::from_str::<Value>(&row.record) else {
        return Err(("its record is not a JSON object".into(), None));
    };
    let mut last = digest(&[row.id.as_bytes()]);
    let mut verified = Vec::with_capacity(actions.len());
    let mut why = None;
    for (i, &(step, action, checksum)) in (0u64..).zip(actions) {
        if step != i {
            why = Some(format!("action {i} is missing (the next row is step {step})"));
            break;
        }
        if action_checksum(last, step, action) != checksum {
            why = Some(format!("action row {step} does not match its checksum (the file was damaged)"));
            break;
        }
        last = checksum;
        verified.push(Value::from(action));
    }
    if why.is_none() && verified.len() as u64 != row.steps {
        why = Some(format!("the table counts {} actions, {} rows are kept", row.steps, verified.len()));
    }
    record.insert("actions".into(), Value::Array(verified));
    match why {
        Some(why) => Err((why, Some(Value::Object(record)))),
        None => Ok(StoredTable {
            format: STORE_FORMAT,
            id: row.id.clone(),
            game: row.game.clone(),
            created: row.created,
            seats,
            record: Value::Object(record),
        }),
    }
}

/// Reads every live and set-aside table; sets aside the live ones whose
/// rows do not check out. Any row SQLite cannot read refuses the file.
fn load(conn: &Connection) -> rusqlite::Result<(Vec<StoredTable>, HashMap<String, SetAside>)> {
    let mut st = conn.prepare(&format!(
        "SELECT {TABLE_COLUMNS} FROM tables WHERE status IN ('live', 'set_aside') ORDER BY created, id"
    ))?;
    let rows = st.query_map([], table_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
    let mut actions: HashMap<i64, ActionRows> = HashMap::new();
    let mut st = conn.prepare("SELECT table_key, step, action, checksum FROM actions ORDER BY table_key, step")?;
    let mut scan = st.query([])?;
    while let Some(r) = scan.next()? {
        actions.entry(r.get(0)?).or_default().push((unsigned(r.get(1)?), unsigned(r.get(2)?), r.get(3)?));
    }
    let (mut tables, mut aside) = (Vec::new(), HashMap::new());
    for row in rows {
        match (read_table(&row, actions.get(&row.key).map_or(&[], Vec::as_slice)), row.why) {
            (Ok(t), None) if row.status == "live" => tables.push(t),
            (Ok(_), why) => drop(aside.insert(row.id, SetAside { why: why.unwrap_or_default() })),
            (Err((why, _)), old) => {
                if row.status == "live" {
                    eprintln!("table {}: set aside, not served: {why}; its rows are kept", row.id);
                    conn.execute(
                        "UPDATE tables SET status = 'set_aside', status_why = ?1, status_at = ?2 WHERE key = ?3",
                        params![why, unix_now(), row.key],
                    )?;
                }
                aside.insert(row.id, SetAside { why: old.unwrap_or(why) });
            }
        }
    }
    Ok((tables, aside))
}

impl Store {
    /// Opens (creating) the database of `dir` after checking its files
    /// ([`files::open`]), migrates it, reads every table back (setting
    /// aside those whose rows do not check out), and starts the writer.
    /// `recover` starts from the last intact commit of a damaged WAL;
    /// `warn_after` is how long a reader may keep the WAL from being
    /// checkpointed before a warning.
    ///
    /// # Errors
    /// When the folder or the database cannot be made or opened, or its
    /// files fail their checks ([`StoreError::Refused`]; nothing is
    /// written then).
    pub(crate) fn open(dir: &Path, recover: bool, warn_after: Duration) -> Result<Opened, StoreError> {
        let (mut conn, folder) = files::open(dir, recover)?;
        let path = db_path(dir);
        let refused = |why: String| StoreError::Refused { path: path.clone(), why };
        let from = migrate(&mut conn).map_err(refused)?;
        if from != 0 && from < SCHEMA_VERSION {
            eprintln!("database {}: schema migrated from version {from} to {SCHEMA_VERSION}", path.display());
        }
        let (tables, aside) = load(&conn).map_err(|e| {
            refused(format!("it cannot be read to its end ({}). {}", files::explain(&e), files::TOGETHER))
        })?;
        let other = files::writable(&path).map_err(|e| refused(files::explain(&e)))?;
        let f: Folder = std::sync::Arc::new(std::sync::Mutex::new(folder));
        let (tx, rx) = mpsc::channel();
        let (stop, stopped) = mpsc::channel();
        let spawn = |name: &str, run: Box<dyn FnOnce() + Send>| {
            std::thread::Builder::new()
                .name(name.into())
                .spawn(run)
                .map_err(|source| StoreError::Io { path: path.clone(), source })
        };
        let g = f.clone();
        let checkpointer =
            spawn("boardgame-checkpointer", Box::new(move || checkpointer(other, g, stopped, warn_after)))?;
        let writer = spawn("boardgame-store", Box::new(move || writer(conn, f, rx)))?;
        Ok(Opened { store: Store { tx, writer: Some(writer), stop, checkpointer: Some(checkpointer) }, tables, aside })
    }

    async fn ask(&self, job: Job) -> Result<(), String> {
        let (done, rx) = oneshot::channel();
        self.tx.send((job, done)).map_err(|_| "the database's writer has stopped".to_string())?;
        rx.await.map_err(|_| "the database's writer has stopped".to_string())?
    }

    /// Saves a table: its row the first time (`known` `None`), then the
    /// actions after the `known` ones, if the database holds exactly those.
    /// Done once the transaction is on disk.
    ///
    /// # Errors
    /// Why it could not be written (the table's rows stay as they were).
    pub(crate) async fn save(&self, table: &StoredTable, known: Option<u64>) -> Result<(), String> {
        self.ask(Job::Save(to_save(table, known)?)).await
    }

    /// Marks a table expired (its rows stay until purged).
    ///
    /// # Errors
    /// Why the mark could not be written.
    pub(crate) async fn expire(&self, id: &str) -> Result<(), String> {
        self.ask(Job::Status { id: id.to_string(), status: "expired", why: None }).await
    }

    /// Sets a table aside: not served again, its rows kept, its status
    /// saying `why`.
    ///
    /// # Errors
    /// Why the mark could not be written.
    pub(crate) async fn set_aside(&self, id: &str, why: &str) -> Result<(), String> {
        self.ask(Job::Status { id: id.to_string(), status: "set_aside", why: Some(why.to_string()) }).await
    }
}

/// The record of table `id` of the database in `dir`, read-only, up to
/// its last action row that checks out (all of it for an intact table).
///
/// # Errors
/// When the database cannot be read, has no such table, or the table's
/// own row does not check out.
pub(crate) fn export(dir: &Path, id: &str) -> Result<Value, StoreError> {
    let path = db_path(dir);
    let refused = |why: String| StoreError::Refused { path: path.clone(), why };
    let conn = files::read_only(&path)?;
    let read = || -> rusqlite::Result<(TableRow, ActionRows)> {
        let row = conn.query_row(&format!("SELECT {TABLE_COLUMNS} FROM tables WHERE id = ?1"), [id], table_row)?;
        let mut st = conn.prepare("SELECT step, action, checksum FROM actions WHERE table_key = ?1 ORDER BY step")?;
        let actions = st
            .query_map([row.key], |r| Ok((unsigned(r.get(0)?), unsigned(r.get(1)?), r.get(2)?)))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok((row, actions))
    };
    let (row, actions) = read().map_err(|e| refused(format!("table {id} cannot be read: {}", files::explain(&e))))?;
    match read_table(&row, &actions) {
        Ok(t) => Ok(t.record),
        Err((_, Some(record))) => Ok(record),
        Err((why, None)) => Err(refused(format!("table {id}: {why}"))),
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
    // With no server on the folder, its files are checked as at start, and
    // its lock held meanwhile; beside a server, that server checked them.
    let (mut conn, folder) = match files::lock(dir, Duration::ZERO) {
        Ok(lock) if files::exists(&path)? => {
            drop(lock);
            let (conn, folder) = files::open(dir, false)?;
            (conn, Some(folder))
        }
        _ => (files::connect_existing(&path)?, None),
    };
    let sql = |e: rusqlite::Error| StoreError::Refused { path: path.clone(), why: files::explain(&e) };
    migrate(&mut conn).map_err(|why| StoreError::Refused { path: path.clone(), why })?;
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(sql)?;
    tx.execute("DELETE FROM actions WHERE table_key IN (SELECT key FROM tables WHERE status = 'expired')", [])
        .map_err(sql)?;
    let n = tx.execute("DELETE FROM tables WHERE status = 'expired'", []).map_err(sql)?;
    let commits: i64 = tx
        .query_row(
            "UPDATE meta SET value = value + 1 WHERE key = 'commits' RETURNING CAST(value AS INTEGER)",
            [],
            |r| r.get(0),
        )
        .map_err(sql)?;
    tx.commit().map_err(sql)?;
    if let Some(mut f) = folder {
        f.note(commits, false);
        conn.close().map_err(|(_, e)| sql(e))?;
        let stopped = f.wal_len() == 0;
        f.note(commits, stopped);
    }
    Ok(n)
}

#[cfg(test)]
mod tests;
