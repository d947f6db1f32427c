use super::*;
use files::DB_FILE;
use rusqlite::OpenFlags;
use std::fs;
use std::path::PathBuf;
use std::time::Duration;

fn table(id: &str, actions: u64) -> StoredTable {
    StoredTable {
        format: STORE_FORMAT,
        id: id.into(),
        game: "nim".into(),
        created: 1,
        seats: vec![StoredSeat { kind: "human".into(), token: Some("x".into()) }],
        record: serde_json::json!({ "engine": "nim", "seed": 7, "actions": (0..actions).map(|a| a * 3).collect::<Vec<_>>() }),
    }
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bg-store-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    dir
}

fn query<T: rusqlite::types::FromSql>(dir: &Path, sql: &str) -> T {
    let conn = Connection::open_with_flags(db_path(dir), OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

fn execute(dir: &Path, sql: &str) {
    let conn = Connection::open(db_path(dir)).unwrap();
    conn.execute_batch(sql).unwrap();
}

#[tokio::test]
async fn saves_append_rows_and_survive_reopening() {
    let dir = temp("append");
    let opened = Store::open(&dir, false, Duration::from_secs(60)).unwrap();
    assert!(opened.tables.is_empty());
    let id = "00000000000000aa";
    opened.store.save(&table(id, 3), None).await.unwrap();
    opened.store.save(&table(id, 5), Some(3)).await.unwrap();
    opened.store.save(&table(id, 5), Some(5)).await.unwrap();
    let refused = opened.store.save(&table(id, 4), Some(5)).await.unwrap_err();
    assert!(refused.contains("5 actions are kept"), "{refused}");
    let moved = opened.store.save(&table(id, 6), Some(4)).await.unwrap_err();
    assert!(moved.contains("does not hold 4 actions"), "{moved}");
    assert_eq!(query::<i64>(&dir, "SELECT count(*) FROM actions"), 5, "one row per action, each written once");
    assert_eq!(query::<i64>(&dir, "SELECT steps FROM tables"), 5);
    assert_eq!(query::<String>(&dir, "PRAGMA journal_mode"), "wal");
    drop(opened);
    let opened = Store::open(&dir, false, Duration::from_secs(60)).unwrap();
    assert_eq!(opened.tables.len(), 1);
    assert_eq!(opened.tables[0].record, table(id, 5).record, "the record comes back whole, actions in order");
    assert_eq!(opened.tables[0].seats[0].token.as_deref(), Some("x"));
    // It goes on from there after a restart, then expires.
    opened.store.save(&table(id, 7), Some(5)).await.unwrap();
    opened.store.save(&table("00000000000000bb", 2), None).await.unwrap();
    opened.store.expire(id).await.unwrap();
    drop(opened);
    assert_eq!(query::<i64>(&dir, "SELECT count(*) FROM actions"), 9);
    let opened = Store::open(&dir, false, Duration::from_secs(60)).unwrap();
    assert_eq!(opened.tables.len(), 1, "an expired table is not served");
    assert_eq!(opened.tables[0].id, "00000000000000bb");
    drop(opened);
    assert_eq!(query::<String>(&dir, &format!("SELECT status FROM tables WHERE id = '{id}'")), "expired");
    assert_eq!(purge_expired(&dir).unwrap(), 1);
    assert_eq!(query::<i64>(&dir, "SELECT count(*) FROM tables"), 1, "only the expired table is purged");
    assert_eq!(query::<i64>(&dir, "SELECT count(*) FROM actions"), 2);
    assert_eq!(Store::open(&dir, false, Duration::from_secs(60)).unwrap().tables.len(), 1);
    let _ = fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_changed_header_is_rewritten_with_its_checksum() {
    let dir = temp("header");
    let opened = Store::open(&dir, false, Duration::from_secs(60)).unwrap();
    let id = "00000000000000aa";
    opened.store.save(&table(id, 2), None).await.unwrap();
    let mut t = table(id, 4);
    t.record["agents"] = serde_json::json!(["human"]);
    opened.store.save(&t, Some(2)).await.unwrap();
    drop(opened);
    let opened = Store::open(&dir, false, Duration::from_secs(60)).unwrap();
    assert_eq!(opened.tables.len(), 1);
    assert_eq!(opened.tables[0].record, t.record);
    drop(opened);
    let _ = fs::remove_dir_all(&dir);
}

/// Rows changed behind the server's back (a flipped byte SQLite cannot
/// see, an action gone, a copy of a table under another id) set the table
/// aside: not served, its rows kept, its status saying why.
#[tokio::test]
async fn rows_that_do_not_check_out_are_set_aside_and_kept() {
    let dir = temp("aside");
    let opened = Store::open(&dir, false, Duration::from_secs(60)).unwrap();
    for (id, n) in [("00000000000000a1", 4), ("00000000000000a2", 4), ("00000000000000a3", 4), ("00000000000000a4", 3)]
    {
        opened.store.save(&table(id, n), None).await.unwrap();
    }
    drop(opened);
    execute(
        &dir,
        "UPDATE actions SET action = action + 1 WHERE step = 2 AND table_key = (SELECT key FROM tables WHERE id = '00000000000000a1');
         DELETE FROM actions WHERE step = 3 AND table_key = (SELECT key FROM tables WHERE id = '00000000000000a2');
         UPDATE tables SET seats = replace(seats, '\"x\"', '\"y\"') WHERE id = '00000000000000a3';
         INSERT INTO tables (id, game, created, seats, record, steps, checksum)
             SELECT '00000000000000b4', game, created, seats, record, steps, checksum FROM tables WHERE id = '00000000000000a4';",
    );
    let opened = Store::open(&dir, false, Duration::from_secs(60)).unwrap();
    let ids: Vec<&str> = opened.tables.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["00000000000000a4"], "only the intact table is served");
    drop(opened);
    let why =
        |id: &str| query::<String>(&dir, &format!("SELECT status || ': ' || status_why FROM tables WHERE id = '{id}'"));
    assert!(
        why("00000000000000a1").starts_with("set_aside: action row 2 does not match"),
        "{}",
        why("00000000000000a1")
    );
    assert!(why("00000000000000a2").contains("counts 4 actions, 3 rows"), "{}", why("00000000000000a2"));
    assert!(why("00000000000000a3").contains("row does not match its checksum"), "{}", why("00000000000000a3"));
    assert!(why("00000000000000b4").contains("row does not match its checksum"), "{}", why("00000000000000b4"));
    assert_eq!(query::<i64>(&dir, "SELECT count(*) FROM actions"), 4 + 3 + 4 + 3, "every row is kept");
    // Set aside for good: the next start does not serve them either.
    assert_eq!(Store::open(&dir, false, Duration::from_secs(60)).unwrap().tables.len(), 1);
    let _ = fs::remove_dir_all(&dir);
}

/// A damaged file is refused at start, and left as it was.
#[tokio::test]
async fn a_damaged_database_is_refused_and_left_untouched() {
    let dir = temp("damaged");
    let opened = Store::open(&dir, false, Duration::from_secs(60)).unwrap();
    for i in 0..40u64 {
        opened.store.save(&table(&format!("{i:016x}"), 30), None).await.unwrap();
    }
    drop(opened);
    let good = fs::read(db_path(&dir)).unwrap();
    assert!(good.len() > 8 * 4096, "several pages ({} bytes)", good.len());
    assert!(!dir.join(format!("{DB_FILE}-wal")).exists(), "closed cleanly: everything is in the file");
    let page = 4096;
    let damages: Vec<(&str, Vec<u8>)> = vec![
        ("the header's magic", {
            let mut b = good.clone();
            b[3] ^= 0x20;
            b
        }),
        ("page 2's b-tree type", {
            let mut b = good.clone();
            b[page] ^= 0xff;
            b
        }),
        ("the last page's cell pointers", {
            let mut b = good.clone();
            let at = good.len() - page + 9;
            b[at] ^= 0x7f;
            b
        }),
        ("cut in half", good[..good.len() / 2].to_vec()),
        ("cut a page short", good[..good.len() - page].to_vec()),
        ("cut mid-page", good[..good.len() - 1000].to_vec()),
        ("emptied", Vec::new()),
    ];
    for (what, bytes) in damages {
        fs::write(db_path(&dir), &bytes).unwrap();
        let Err(e) = Store::open(&dir, false, Duration::from_secs(60)) else {
            panic!("{what}: the damaged database was opened")
        };
        let message = e.to_string();
        assert!(message.starts_with("refusing the database"), "{what}: {message}");
        assert!(message.contains("left untouched"), "{what}: {message}");
        assert_eq!(fs::read(db_path(&dir)).unwrap(), bytes, "{what}: the file was changed");
    }
    fs::write(db_path(&dir), b"SQLite format 3\0 but not really, just some text").unwrap();
    assert!(Store::open(&dir, false, Duration::from_secs(60)).is_err());
    fs::write(db_path(&dir), &good).unwrap();
    assert_eq!(Store::open(&dir, false, Duration::from_secs(60)).unwrap().tables.len(), 40, "the intact file opens");
    let _ = fs::remove_dir_all(&dir);
}

/// Bytes flipped anywhere in the file: the store refuses it, or serves
/// exactly what was saved for each table it serves (the tables whose rows
/// do not check out are set aside) — never a history that was not saved.
#[tokio::test]
async fn flipped_bytes_never_serve_a_history_never_saved() {
    let dir = temp("flips");
    let opened = Store::open(&dir, false, Duration::from_secs(60)).unwrap();
    let saved: Vec<StoredTable> = (0..12u64).map(|i| table(&format!("{:016x}", i + 1), 10 + i)).collect();
    for t in &saved {
        opened.store.save(t, None).await.unwrap();
    }
    drop(opened);
    let good = fs::read(db_path(&dir)).unwrap();
    let (mut refused, mut served, mut aside) = (0, 0, 0);
    let mut lcg = 0x9e37_79b9_7f4a_7c15_u64;
    for _ in 0..200 {
        lcg = lcg.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let at = (lcg >> 20) as usize % good.len();
        let mut bytes = good.clone();
        bytes[at] ^= 1 << ((lcg >> 8) % 8);
        fs::write(db_path(&dir), &bytes).unwrap();
        match Store::open(&dir, false, Duration::from_secs(60)) {
            Err(e) => {
                assert!(e.to_string().starts_with("refusing the database"), "{e}");
                refused += 1;
            }
            Ok(opened) => {
                for t in &opened.tables {
                    let same = saved.iter().find(|s| s.id == t.id);
                    assert!(
                        same.is_some_and(|s| s.record == t.record && s.seats[0].token == t.seats[0].token),
                        "byte {at}: table {} is served as it was never saved",
                        t.id
                    );
                }
                served += opened.tables.len();
                aside += saved.len() - opened.tables.len();
            }
        }
        for leftover in ["-wal", "-shm"] {
            let _ = fs::remove_file(dir.join(format!("{DB_FILE}{leftover}")));
        }
    }
    println!("200 flips: {refused} refused, {served} tables served intact, {aside} not served");
    assert!(refused > 0 && served > 0, "both outcomes were seen ({refused} refused, {served} served)");
    let _ = fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[tokio::test]
async fn secrets_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp("perm");
    fs::create_dir_all(&dir).unwrap();
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
    let opened = Store::open(&dir, false, Duration::from_secs(60)).unwrap();
    opened.store.save(&table("00000000000000aa", 2), None).await.unwrap();
    let mode = |p: &str| fs::metadata(dir.join(p)).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(""), 0o755, "the mode of a folder the server did not create is left as it is");
    assert_eq!(mode(DB_FILE), 0o600);
    assert_eq!(mode(&format!("{DB_FILE}-wal")), 0o600);
    assert_eq!(mode(&format!("{DB_FILE}-shm")), 0o600);
    drop(opened);
    fs::set_permissions(db_path(&dir), fs::Permissions::from_mode(0o644)).unwrap();
    drop(Store::open(&dir, false, Duration::from_secs(60)).unwrap());
    assert_eq!(mode(DB_FILE), 0o600, "a file opened up is closed again");
    let _ = fs::remove_dir_all(&dir);
}

/// One server per data folder: a second waits for the first's lock, and
/// is refused while it is held.
#[tokio::test]
async fn a_second_server_on_the_same_folder_is_refused() {
    let dir = temp("lock");
    let opened = Store::open(&dir, false, Duration::from_secs(60)).unwrap();
    let Err(e) = files::lock(&dir, std::time::Duration::from_millis(50)) else { panic!("the lock was taken twice") };
    assert!(e.to_string().contains("another server is using the data folder"), "{e}");
    // Readers are not locked out (backups, the sqlite3 shell).
    assert_eq!(query::<i64>(&dir, "SELECT count(*) FROM tables"), 0);
    drop(opened);
    drop(files::lock(&dir, std::time::Duration::ZERO).unwrap());
    assert!(Store::open(&dir, false, Duration::from_secs(60)).is_ok(), "free again once the first is closed");
    let _ = fs::remove_dir_all(&dir);
}

/// A new folder is made `0700`.
#[cfg(unix)]
#[tokio::test]
async fn a_folder_the_server_makes_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp("newdir");
    drop(Store::open(&dir, false, Duration::from_secs(60)).unwrap());
    assert_eq!(fs::metadata(&dir).unwrap().permissions().mode() & 0o777, 0o700);
    let _ = fs::remove_dir_all(&dir);
}

/// A database of the first schema (`user_version` 1: a `heads` table,
/// actions in the order appended) is migrated forward and plays on.
#[tokio::test]
async fn a_database_of_the_first_schema_is_migrated() {
    let dir = temp("migrate");
    fs::create_dir_all(&dir).unwrap();
    let conn = Connection::open(db_path(&dir)).unwrap();
    conn.pragma_update(None, "application_id", 0x4247_5442).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    conn.execute_batch(MIGRATIONS[0]).unwrap();
    conn.pragma_update(None, "user_version", 1).unwrap();
    for (id, n) in [("00000000000000a1", 3u64), ("00000000000000a2", 2)] {
        let s = to_save(&table(id, n), None).unwrap();
        let sum = table_checksum(&s.id, &s.game, s.created, &s.seats, &s.record);
        conn.execute(
            "INSERT INTO tables (id, game, created, seats, record, checksum) VALUES (?1, ?2, 1, ?3, ?4, ?5)",
            params![s.id, s.game, s.seats, s.record, sum],
        )
        .unwrap();
        let key = conn.last_insert_rowid();
        conn.execute("INSERT INTO heads VALUES (?1, ?2)", params![key, n as i64]).unwrap();
        let mut last = digest(&[id.as_bytes()]);
        for (step, &a) in s.actions.iter().enumerate() {
            last = action_checksum(last, step as u64, a);
            conn.execute(
                "INSERT INTO actions (table_key, step, action, checksum) VALUES (?1, ?2, ?3, ?4)",
                params![key, step as i64, a as i64, last],
            )
            .unwrap();
        }
    }
    drop(conn);
    let opened = Store::open(&dir, false, Duration::from_secs(60)).unwrap();
    let mut got: Vec<(String, Value)> = opened.tables.iter().map(|t| (t.id.clone(), t.record.clone())).collect();
    got.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        got,
        [
            ("00000000000000a1".into(), table("00000000000000a1", 3).record),
            ("00000000000000a2".into(), table("00000000000000a2", 2).record)
        ]
    );
    opened.store.save(&table("00000000000000a1", 6), Some(3)).await.unwrap();
    drop(opened);
    assert_eq!(query::<i64>(&dir, "PRAGMA user_version"), SCHEMA_VERSION);
    assert_eq!(query::<i64>(&dir, "SELECT count(*) FROM sqlite_schema WHERE name = 'heads'"), 0);
    assert_eq!(query::<i64>(&dir, "SELECT steps FROM tables WHERE id = '00000000000000a1'"), 6);
    assert_eq!(query::<i64>(&dir, "SELECT count(*) FROM actions"), 8);
    let Err(e) = Connection::open(db_path(&dir))
        .unwrap()
        .execute("INSERT INTO actions SELECT table_key, step, action, checksum FROM actions LIMIT 1", [])
    else {
        panic!("a second row for the same step was taken")
    };
    assert!(e.to_string().contains("UNIQUE"), "{e}");
    assert_eq!(Store::open(&dir, false, Duration::from_secs(60)).unwrap().tables.len(), 2);
    let _ = fs::remove_dir_all(&dir);
}

/// With the lock file removed, a second server opens the same folder; the
/// one that appends second to a table is refused, never forking it.
#[tokio::test]
async fn a_second_writer_is_refused_not_forked() {
    let dir = temp("fork");
    let first = Store::open(&dir, false, Duration::from_secs(60)).unwrap();
    let id = "00000000000000aa";
    first.store.save(&table(id, 3), None).await.unwrap();
    fs::remove_file(dir.join(format!("{DB_FILE}.lock"))).unwrap();
    let second = Store::open(&dir, false, Duration::from_secs(60)).unwrap();
    assert_eq!(second.tables.len(), 1);
    first.store.save(&table(id, 5), Some(3)).await.unwrap();
    let e = second.store.save(&table(id, 4), Some(3)).await.unwrap_err();
    assert!(e.contains("another server writes to the same data folder"), "{e}");
    drop((first, second));
    assert_eq!(query::<i64>(&dir, "SELECT steps FROM tables"), 5);
    assert_eq!(Store::open(&dir, false, Duration::from_secs(60)).unwrap().tables[0].record, table(id, 5).record);
    let _ = fs::remove_dir_all(&dir);
}

/// 2,000 refused saves of two kinds, one every 12.5 ms for 25 s, the kinds
/// in turn: each kind is logged at its first refusal, then once per 10 s
/// with how many were refused since its last line.
#[test]
fn refused_saves_are_logged_once_per_kind_per_10_s_with_a_count() {
    let start = Instant::now();
    let mut quiet = Quiet::default();
    let mut lines = Vec::new();
    for i in 0..2000u32 {
        let kind = if i % 2 == 0 { "busy" } else { "moved" };
        let now = start + Duration::from_micros(12_500) * i;
        if let Some(line) = quiet.line(now, kind, &format!("{kind} {i}")) {
            lines.push((i, line));
        }
    }
    let said = |i: u32, kind: &str, more: &str| (i, format!("database: a save was refused: {kind} {i}{more}"));
    assert_eq!(
        lines,
        [
            said(0, "busy", ""),
            said(1, "moved", ""),
            said(800, "busy", " (400 saves refused this way in the last 10 s)"),
            said(801, "moved", " (400 saves refused this way in the last 10 s)"),
            said(1600, "busy", " (400 saves refused this way in the last 10 s)"),
            said(1601, "moved", " (400 saves refused this way in the last 10 s)"),
        ]
    );
}

/// The rows' checksum is the one every database so far was written with:
/// FNV-1a 64 over each part's length (8 bytes, little-endian) and bytes
/// (the value computed independently of the kit).
#[test]
fn the_checksum_is_the_one_databases_were_written_with() {
    assert_eq!(digest(&[b"abc", b"", &7u64.to_le_bytes()]), -4_743_591_906_016_749_091);
}

/// Saves grouped into one transaction each run in a savepoint: a save that
/// fails after its first statements (here a trigger refuses its second
/// action row, as a disk that fills between two rows would) leaves nothing
/// of itself, and the saves beside it in the batch are kept.
#[test]
fn a_save_that_fails_midway_leaves_nothing_and_its_batch_is_kept() {
    let dir = temp("savepoint");
    let (mut conn, folder) = files::open(&dir, false).unwrap();
    migrate(&mut conn).unwrap();
    let b = "00000000000000bb";
    write_save(&conn, &to_save(&table(b, 2), None).unwrap()).unwrap();
    conn.execute_batch(
        "CREATE TEMP TRIGGER refuse BEFORE INSERT ON main.actions WHEN NEW.action = 999 \
         BEGIN SELECT RAISE(ABORT, 'the disk filled between two rows'); END;",
    )
    .unwrap();
    let mut longer = table(b, 2);
    longer.record["actions"] = serde_json::json!([0, 3, 6, 999]);
    let (tx, rx) = mpsc::channel();
    let mut answers = Vec::new();
    for (t, known) in [(table("00000000000000aa", 3), None), (longer, Some(2))] {
        let (done, answer) = oneshot::channel();
        tx.send((Job::Save(to_save(&t, known).unwrap()), done)).unwrap();
        answers.push(answer);
    }
    drop(tx);
    // Both saves wait before the writer starts: one batch, one transaction.
    let f: Folder = std::sync::Arc::new(std::sync::Mutex::new(folder));
    std::thread::spawn(move || writer(conn, f, rx)).join().unwrap();
    let got: Vec<Result<(), String>> = answers.into_iter().map(|a| a.blocking_recv().unwrap()).collect();
    assert_eq!(got[0], Ok(()));
    assert!(got[1].as_ref().is_err_and(|e| e.contains("the disk filled")), "{got:?}");
    let steps = |id: &str| query::<i64>(&dir, &format!("SELECT steps FROM tables WHERE id = '{id}'"));
    let rows = |id: &str| {
        query::<i64>(&dir, &format!("SELECT count(*) FROM actions JOIN tables ON key = table_key WHERE id = '{id}'"))
    };
    assert_eq!((steps("00000000000000aa"), rows("00000000000000aa")), (3, 3), "the other save of the batch is kept");
    assert_eq!((steps(b), rows(b)), (2, 2), "nothing of the failed save is kept");
    let _ = fs::remove_dir_all(&dir);
}
