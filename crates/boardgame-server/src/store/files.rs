//! The data folder's files, checked before SQLite opens them: `tables.db`,
//! its `-wal` and `-shm`, and `tables.db.lock`.
//!
//! The lock file is held with an advisory lock (`flock`) while a server
//! runs; the kernel releases it when the process ends, however it ends.
//! It also holds a line the writer rewrites after each commit (before the
//! commit is acknowledged): `running N` or, after a clean close, `stopped
//! N`, where N is the database's commit counter (`meta.commits`). At
//! start, a database whose counter is below N lost acknowledged commits
//! (a WAL deleted, cut or damaged) and is refused, its files copied aside.

use std::fs::{self, File};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use super::{unix_now, wal};

/// The database's file name in the data directory.
pub(crate) const DB_FILE: &str = "tables.db";

/// `PRAGMA application_id` of the database: "BGTB".
const APPLICATION_ID: i64 = 0x4247_5442;

/// How long a statement waits for another connection's lock (a backup, a
/// `sqlite3` shell) before it fails.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a server waits for another that holds the folder's lock (a
/// server stopping, or the same process's previous server closing).
const LOCK_WAIT: Duration = Duration::from_secs(20);

/// The WAL file is cut back to this size after a checkpoint.
const WAL_SIZE_LIMIT: i64 = 64 * 1024 * 1024;

/// The advice of every refusal of files that do not belong together.
pub(crate) const TOGETHER: &str = "tables.db, tables.db-wal and tables.db-shm are one database: move, copy or restore all three \
                        together, with the server stopped (docs/serve.md, \"Operating it\")";

/// The database's path in `dir`.
pub(crate) fn db_path(dir: &Path) -> PathBuf {
    dir.join(DB_FILE)
}

fn sibling(dir: &Path, suffix: &str) -> PathBuf {
    dir.join(format!("{DB_FILE}{suffix}"))
}

/// Why the data directory could not be opened.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StoreError {
    /// A file or folder could not be made, read or written.
    #[error("data directory {}: {}", path.display(), io_advice(source))]
    Io {
        /// What was being done to.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// The files are damaged, do not belong together, or are another
    /// server's; nothing was written to them.
    #[error("refusing the database {}: {why}. It is left untouched", path.display())]
    Refused {
        /// The database file.
        path: PathBuf,
        /// What is wrong, and what to do.
        why: String,
    },
}

impl From<StoreError> for std::io::Error {
    fn from(e: StoreError) -> Self {
        std::io::Error::other(e)
    }
}

fn io_advice(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::StorageFull => format!("{e}: the disk is full; free space on it and start again"),
        std::io::ErrorKind::PermissionDenied => format!("{e}: give the server's user access to the folder"),
        _ => e.to_string(),
    }
}

/// SQLite's error, with what to do for the ones an operator can fix.
pub(crate) fn explain(e: &rusqlite::Error) -> String {
    match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::DiskFull) => format!("{e}: the disk is full; free space on it"),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => {
            format!("{e}: another program holds the database (a backup, an sqlite3 shell writing)")
        }
        Some(rusqlite::ErrorCode::ReadOnly | rusqlite::ErrorCode::PermissionDenied) => {
            format!("{e}: give the server's user write access to the data folder and its files")
        }
        _ => e.to_string(),
    }
}

/// What the lock file says of the database, rewritten after each commit
/// and around each checkpoint.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Mark {
    /// The server closed the database cleanly (its WAL emptied).
    stopped: bool,
    /// The last commit acknowledged (`meta.commits`).
    commits: i64,
    /// The WAL's salts after that commit.
    salts: Option<(u32, u32)>,
    /// The database file's size after the last checkpoint (a checkpoint
    /// only makes it larger).
    db: Option<u64>,
}

impl Mark {
    fn line(&self) -> String {
        let salts = self.salts.map_or("-".into(), |(a, b)| format!("{a:08x}{b:08x}"));
        let db = self.db.map_or("-".into(), |size| size.to_string());
        let state = if self.stopped { "stopped" } else { "running" };
        format!("{state} {} {salts} {db}\n", self.commits)
    }

    fn parse(text: &str) -> Option<Mark> {
        let mut w = text.split_whitespace();
        let stopped = w.next()? == "stopped";
        let commits = w.next()?.parse().ok()?;
        let salts = w.next().and_then(|s| {
            let n = u64::from_str_radix(s, 16).ok()?;
            Some((u32::try_from(n >> 32).ok()?, u32::try_from(n & 0xffff_ffff).ok()?))
        });
        let db = w.next().and_then(|d| d.parse().ok());
        Some(Mark { stopped, commits, salts, db })
    }
}

/// The database file's size: a store that only grows, put back older,
/// is smaller (a copy of the same file, moved or copied, is the same).
fn identity(path: &Path) -> Option<u64> {
    fs::metadata(path).ok().map(|m| m.len())
}

/// The WAL's salts, from its header.
fn salts(path: &Path) -> Option<(u32, u32)> {
    let mut b = [0u8; 24];
    File::open(path).and_then(|mut f| f.read_exact(&mut b)).ok()?;
    let word = |at: usize| b.get(at..at + 4).and_then(|w| w.try_into().ok()).map(u32::from_be_bytes);
    Some((word(16)?, word(20)?))
}

/// The folder's lock file, held for as long as this lives.
pub(crate) struct Folder {
    lock: File,
    dir: PathBuf,
    mark: Mark,
}

impl Folder {
    fn write(&self) {
        let line = format!("{:<80}", self.mark.line());
        #[cfg(unix)]
        let written = std::os::unix::fs::FileExt::write_all_at(&self.lock, line.as_bytes(), 0);
        #[cfg(not(unix))]
        let written = std::io::Write::write_all(&mut &self.lock, line.as_bytes());
        if let Err(e) = written {
            eprintln!("database: the lock file cannot be written ({e}); a lost WAL would go unseen");
        }
    }

    /// Notes a commit (before it is acknowledged), or a clean close.
    pub(crate) fn note(&mut self, commits: i64, stopped: bool) {
        self.mark.commits = commits;
        self.mark.stopped = stopped;
        self.mark.salts = if stopped { None } else { salts(&sibling(&self.dir, "-wal")) };
        self.write();
    }

    /// Notes a checkpoint done.
    pub(crate) fn checkpointed(&mut self) {
        self.mark.db = identity(&db_path(&self.dir));
        self.write();
    }

    /// The WAL's size in bytes.
    pub(crate) fn wal_len(&self) -> u64 {
        fs::metadata(sibling(&self.dir, "-wal")).map_or(0, |m| m.len())
    }
}

/// What the lock file says of the last server (`None`: nothing, a new
/// folder).
fn last_run(lock: &mut File) -> Option<Mark> {
    let mut text = String::new();
    lock.read_to_string(&mut text).ok()?;
    Mark::parse(&text)
}

/// Refuses a data file that is a symbolic link, or not a file.
fn plain(path: &Path) -> Result<bool, StoreError> {
    let refused = |why: String| StoreError::Refused { path: path.to_path_buf(), why };
    match fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(source) => Err(StoreError::Io { path: path.to_path_buf(), source }),
        Ok(m) if m.file_type().is_symlink() => Err(refused(format!(
            "{} is a symbolic link; the server opens its data files only directly: put the files themselves in the \
             folder ({TOGETHER})",
            path.display()
        ))),
        Ok(m) if !m.is_file() => Err(refused(format!("{} is not a file: move it away", path.display()))),
        Ok(_) => Ok(true),
    }
}

/// Makes the folder (`0700`) if it is missing; warns about one others can
/// write.
fn folder(dir: &Path) -> Result<(), StoreError> {
    let io = |source| StoreError::Io { path: dir.to_path_buf(), source };
    match fs::metadata(dir) {
        Ok(m) => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let mode = m.permissions().mode() & 0o7777;
                if mode & 0o002 != 0 {
                    eprintln!(
                        "warning: the data folder {} (mode {mode:04o}) can be written by every user of this machine: \
                         another user could replace or remove its files; give the server a folder of its own",
                        dir.display()
                    );
                }
            }
            if m.is_dir() { Ok(()) } else { Err(io(std::io::Error::other("it is not a folder"))) }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let mut b = fs::DirBuilder::new();
            b.recursive(true);
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
            b.create(dir).map_err(io)
        }
        Err(e) => Err(io(e)),
    }
}

/// Opens a data file for writing, without following a link, `0600` if
/// it is created.
fn open_file(path: &Path) -> std::io::Result<File> {
    let mut o = fs::OpenOptions::new();
    o.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600).custom_flags(i32::try_from(rustix::fs::OFlags::NOFOLLOW.bits()).unwrap_or(0));
    }
    o.open(path)
}

/// Takes the folder's lock, waiting up to `wait` for another server to
/// release it.
pub(crate) fn lock(dir: &Path, wait: Duration) -> Result<File, StoreError> {
    let path = sibling(dir, ".lock");
    plain(&path)?;
    let file = open_file(&path).map_err(|source| StoreError::Io { path: path.clone(), source })?;
    let until = std::time::Instant::now() + wait;
    loop {
        #[cfg(unix)]
        let taken = rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive);
        #[cfg(not(unix))]
        let taken: Result<(), std::io::Error> = Ok(());
        match taken {
            Ok(()) => return Ok(file),
            Err(_) if std::time::Instant::now() < until => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => {
                return Err(StoreError::Refused {
                    path: db_path(dir),
                    why: format!(
                        "another server is using the data folder {} (it holds the lock on {}: {e}); stop it first, \
                         or give this server another --data folder. The lock is released when that server's process \
                         ends, however it ends: there is nothing to delete",
                        dir.display(),
                        path.display()
                    ),
                });
            }
        }
    }
}

/// Copies the three files into a new folder beside them; its path.
fn set_aside(dir: &Path) -> Result<PathBuf, StoreError> {
    let aside = dir.join(format!("{DB_FILE}.aside-{}", unix_now()));
    let io = |source| StoreError::Io { path: aside.clone(), source };
    fs::create_dir_all(&aside).map_err(io)?;
    for suffix in ["", "-wal", "-shm"] {
        let from = sibling(dir, suffix);
        if from.exists() {
            fs::copy(&from, aside.join(format!("{DB_FILE}{suffix}"))).map_err(io)?;
        }
    }
    Ok(aside)
}

fn connect(path: &Path, flags: OpenFlags) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(path, flags | OpenFlags::SQLITE_OPEN_NOFOLLOW)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    Ok(conn)
}

/// Why an existing database cannot be served: what is wrong, and whether
/// the file itself is damaged (then a backup is the way back).
struct Unreadable {
    why: String,
    damaged: bool,
}

impl Unreadable {
    fn sql(e: &rusqlite::Error) -> Unreadable {
        match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase) => {
                Unreadable { why: format!("it is damaged ({e})"), damaged: true }
            }
            _ => Unreadable { why: explain(e), damaged: false },
        }
    }

    /// What is wrong and what to do, when nothing more is known.
    fn advice(&self) -> String {
        let restore = if self.damaged { ": restore a backup" } else { "" };
        format!("{}{restore}. {TOGETHER}", self.why)
    }
}

/// Reads an existing database without writing to it: this server's, of a
/// schema it knows, passing `PRAGMA quick_check`; its commit counter.
fn check(path: &Path) -> Result<i64, Unreadable> {
    let sql = |e: rusqlite::Error| Unreadable::sql(&e);
    let conn = connect(path, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(sql)?;
    conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true).map_err(sql)?;
    let app: i64 = conn.query_row("PRAGMA application_id", [], |r| r.get(0)).map_err(sql)?;
    if app != APPLICATION_ID {
        return Err(Unreadable {
            why: format!("it is not a table database of this server (application_id {app:#x})"),
            damaged: true,
        });
    }
    let mut st = conn.prepare("PRAGMA quick_check").map_err(sql)?;
    let problems = st
        .query_map([], |r| r.get::<_, String>(0))
        .and_then(Iterator::collect::<rusqlite::Result<Vec<_>>>)
        .map_err(sql)?;
    if problems != ["ok"] {
        let shown: Vec<&str> = problems.iter().take(5).map(String::as_str).collect();
        return Err(Unreadable {
            why: format!("PRAGMA quick_check finds it damaged: {}", shown.join("; ")),
            damaged: true,
        });
    }
    let commits = conn.query_row("SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'commits'", [], |r| r.get(0));
    Ok(commits.unwrap_or(0))
}

/// Creates an empty database at `path`: written aside, flushed, then
/// renamed into place, so that `path` is never a half-made database. A
/// `tables.db.new` left by a start that failed is made again by SQLite
/// (its journal rolled back) and renamed in turn.
fn create(dir: &Path, path: &Path) -> Result<(), StoreError> {
    let aside = sibling(dir, ".new");
    let io = |source| StoreError::Io { path: aside.clone(), source };
    drop(open_file(&aside).map_err(io)?);
    let conn = connect(&aside, OpenFlags::default()).and_then(|c| {
        c.pragma_update(None, "application_id", APPLICATION_ID)?;
        c.close().map_err(|(_, e)| e)
    });
    conn.map_err(|e| StoreError::Refused { path: aside.clone(), why: explain(&e) })?;
    File::open(&aside).and_then(|f| f.sync_all()).map_err(io)?;
    fs::rename(&aside, path).map_err(io)?;
    File::open(dir).and_then(|f| f.sync_all()).map_err(|source| StoreError::Io { path: dir.to_path_buf(), source })
}

/// Whether `path` is there (a plain file; a link or a folder is refused).
pub(crate) fn exists(path: &Path) -> Result<bool, StoreError> {
    plain(path)
}

/// Opens an existing database read-only, checkpointing nothing.
pub(crate) fn read_only(path: &Path) -> Result<Connection, StoreError> {
    let refused = |e: rusqlite::Error| StoreError::Refused { path: path.to_path_buf(), why: explain(&e) };
    if !plain(path)? {
        return Err(StoreError::Io { path: path.to_path_buf(), source: std::io::ErrorKind::NotFound.into() });
    }
    let conn = connect(path, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(refused)?;
    conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true).map_err(refused)?;
    Ok(conn)
}

/// Opens an existing database for writing (`purge_expired`).
pub(crate) fn connect_existing(path: &Path) -> Result<Connection, StoreError> {
    if !plain(path)? {
        return Err(StoreError::Io { path: path.to_path_buf(), source: std::io::ErrorKind::NotFound.into() });
    }
    check(path).map_err(|u| StoreError::Refused { path: path.to_path_buf(), why: u.advice() })?;
    writable(path).map_err(|e| StoreError::Refused { path: path.to_path_buf(), why: explain(&e) })
}

pub(crate) fn writable(path: &Path) -> rusqlite::Result<Connection> {
    let conn = connect(path, OpenFlags::default())?;
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(rusqlite::Error::InvalidQuery);
    }
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.pragma_update(None, "foreign_keys", true)?;
    conn.pragma_update(None, "journal_size_limit", WAL_SIZE_LIMIT)?;
    // Checkpoints are the checkpointer's, noted in the lock file around them.
    conn.pragma_update(None, "wal_autocheckpoint", 0)?;
    Ok(conn)
}

/// Checks the folder's files, takes its lock and opens the database for
/// writing (creating it in a new folder). `recover` starts from the last
/// intact commit where acknowledged ones are lost.
pub(crate) fn open(dir: &Path, recover: bool) -> Result<(Connection, Folder), StoreError> {
    folder(dir)?;
    let path = db_path(dir);
    let refused = |why: String| StoreError::Refused { path: path.clone(), why };
    let mut lock = lock(dir, LOCK_WAIT)?;
    let (db, wal_file, shm) = (plain(&path)?, plain(&sibling(dir, "-wal"))?, plain(&sibling(dir, "-shm"))?);
    let last = last_run(&mut lock);
    let mut start = 0;
    if !db {
        if wal_file || shm {
            return Err(refused(format!("it is missing, but its -wal or -shm file is there. {TOGETHER}")));
        }
        if let Some(n) = last.map(|m| m.commits).filter(|&n| n > 0) {
            return Err(refused(format!(
                "it is missing, but this folder's server acknowledged {n} commits to it ({} says so). {TOGETHER}; to \
                 start this folder afresh, move tables.db.lock away too",
                sibling(dir, ".lock").display()
            )));
        }
        create(dir, &path)?;
    } else {
        let wal_path = sibling(dir, "-wal");
        let bytes = if wal_file {
            fs::read(&wal_path).map_err(|source| StoreError::Io { path: wal_path.clone(), source })?
        } else {
            Vec::new()
        };
        let found = wal::read(&bytes);
        let lost = match (&found.damage, last) {
            (Some(damage), _) => Some(format!("{} is damaged: {damage}", wal_path.display())),
            (None, Some(m)) if found.commits > 0 && m.stopped => Some(format!(
                "{} holds {} commits, but the server stopped cleanly (which empties it): it belongs to another copy \
                 of the database",
                wal_path.display(),
                found.commits
            )),
            (None, Some(Mark { salts: Some(s), .. }))
                if found.commits > 0 && found.salts.0 != s.0.wrapping_add(1) && found.salts != s =>
            {
                Some(format!(
                    "{} is not the WAL this server wrote beside tables.db (its salts differ): it belongs to another \
                     copy of the database",
                    wal_path.display()
                ))
            }
            (None, Some(Mark { db: Some(id), .. }))
                if found.commits > 0 && identity(&path).is_some_and(|size| size < id) =>
            {
                Some(format!(
                    "{} is smaller than it was after the server's last checkpoint (an older copy put back?), so {} does \
                 not continue it",
                    path.display(),
                    wal_path.display()
                ))
            }
            _ => None,
        };
        let lost = match lost {
            Some(why) => Some(why),
            None => {
                let commits = check(&path);
                // SQLite's reader leaves an empty WAL and an index where
                // there was none: they are not left behind.
                for (suffix, was) in [("-wal", wal_file), ("-shm", shm)] {
                    if !was {
                        let _ = fs::remove_file(sibling(dir, suffix));
                    }
                }
                let unclean = last.is_some_and(|m| !m.stopped && m.commits > 0);
                let commits = commits.map_err(|u| match unclean && (!wal_file || found.torn > 0) {
                    true => refused(format!(
                        "{}: the server stopped uncleanly, and without the whole of its WAL (tables.db-wal is {}) \
                         tables.db cannot be read. Put the WAL back beside it if you have it; else restore a backup. \
                         {TOGETHER}",
                        u.why,
                        if wal_file { "cut" } else { "missing" }
                    )),
                    false => refused(u.advice()),
                })?;
                start = commits;
                match last.map(|m| (m.stopped, m.commits)) {
                    Some((false, acked)) if commits < acked => Some(format!(
                        "it holds commit {commits}, but the server acknowledged commit {acked} before it stopped \
                         uncleanly: {} acknowledged commits are lost ({})",
                        acked - commits,
                        if !wal_file {
                            "the WAL, tables.db-wal, is missing".to_string()
                        } else if found.torn > 0 {
                            format!("tables.db-wal ends {} bytes into a commit", found.torn)
                        } else {
                            "tables.db-wal is cut short or damaged".to_string()
                        }
                    )),
                    Some((true, acked)) if commits < acked => {
                        eprintln!(
                            "database {}: a restore — it holds commit {commits}, the folder's server had reached \
                             {acked}; it is served as it is",
                            path.display()
                        );
                        None
                    }
                    _ => None,
                }
            }
        };
        if let Some(why) = lost {
            let aside = set_aside(dir)?;
            if !recover {
                return Err(refused(format!(
                    "{why}. The files were copied, untouched, to {}. To serve the tables as of the last intact \
                     commit (and drop the rest), start with --recover-from-last-intact-commit",
                    aside.display()
                )));
            }
            eprintln!(
                "database {}: {why}; started from the last intact commit (--recover-from-last-intact-commit), the \
                 files as they were are in {}",
                path.display(),
                aside.display()
            );
            start = check(&path).map_err(|u| refused(u.advice()))?;
            if let Some(acked) = last.map(|m| m.commits) {
                eprintln!("database {}: {} acknowledged commits were dropped", path.display(), (acked - start).max(0));
            }
        }
    }
    #[cfg(unix)]
    for suffix in ["", "-wal", "-shm", ".lock"] {
        use std::os::unix::fs::PermissionsExt;
        let p = sibling(dir, suffix);
        if plain(&p)? {
            fs::set_permissions(&p, fs::Permissions::from_mode(0o600))
                .map_err(|source| StoreError::Io { path: p, source })?;
        }
    }
    let conn = writable(&path).map_err(|e| refused(format!("{}. {TOGETHER}", explain(&e))))?;
    if recover {
        // Later frames of the damaged WAL are not left for the next start.
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).map_err(|e| refused(explain(&e)))?;
    }
    lock.set_len(0).map_err(|source| StoreError::Io { path: sibling(dir, ".lock"), source })?;
    let mut folder = Folder { lock, dir: dir.to_path_buf(), mark: Mark::default() };
    folder.checkpointed();
    folder.note(start, false);
    Ok((conn, folder))
}
