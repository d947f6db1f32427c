//! Every rule id of `docs/rules/caravan.md` is cited by a test of this
//! crate, and the tests cite no id the rules do not define.
//!
//! A rule is defined by a list item starting `- C-<section>.<rule>`. A test
//! cites it by the id itself (`C-5.3`) or by a test name part `c5_3_`. The
//! crate's tests are the files under `tests/` (this one excepted) and the
//! `#[cfg(test)]` modules of `src/`.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The ids `C-a.b` defined by the rules.
fn defined_ids() -> BTreeSet<(u32, u32)> {
    let rules = fs::read_to_string(manifest().join("../../docs/rules/caravan.md")).expect("docs/rules/caravan.md");
    rules.lines().filter_map(|l| l.strip_prefix("- C-")).filter_map(|rest| id_at(rest.as_bytes(), b'.')).collect()
}

/// Parses `a<sep>b` at the start of `text` (not followed by a digit).
fn id_at(text: &[u8], sep: u8) -> Option<(u32, u32)> {
    let digits = |t: &[u8]| t.iter().take_while(|c| c.is_ascii_digit()).count();
    let a = digits(text);
    if a == 0 || text.get(a) != Some(&sep) {
        return None;
    }
    let rest = &text[a + 1..];
    let b = digits(rest);
    if b == 0 {
        return None;
    }
    let major = std::str::from_utf8(&text[..a]).ok()?.parse().ok()?;
    let minor = std::str::from_utf8(&rest[..b]).ok()?.parse().ok()?;
    Some((major, minor))
}

/// The ids cited in `text`: `C-a.b`, or `ca_b_` in an identifier.
fn cited_ids(text: &str) -> BTreeSet<(u32, u32)> {
    let bytes = text.as_bytes();
    let mut ids = BTreeSet::new();
    for i in 0..bytes.len() {
        if bytes[i..].starts_with(b"C-") {
            ids.extend(id_at(&bytes[i + 2..], b'.'));
        }
        let starts_name = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        if bytes[i] == b'c' && starts_name {
            let rest = &bytes[i + 1..];
            if let Some(id) = id_at(rest, b'_') {
                // the name goes on after the id: `c5_3_...`
                let len = rest.iter().take_while(|c| c.is_ascii_digit() || **c == b'_').count();
                if rest[..len].ends_with(b"_") {
                    ids.insert(id);
                }
            }
        }
    }
    ids
}

/// The test code of the crate.
fn test_sources() -> Vec<(PathBuf, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in fs::read_dir(dir).expect("readable directory").flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(&manifest().join("tests"), &mut files);
    let mut src = Vec::new();
    walk(&manifest().join("src"), &mut src);
    let mut sources = Vec::new();
    for path in files {
        if path.file_name().is_some_and(|n| n == "rule_ids.rs") {
            continue;
        }
        let text = fs::read_to_string(&path).expect("readable test");
        sources.push((path, text));
    }
    for path in src {
        let text = fs::read_to_string(&path).expect("readable source");
        if let Some(at) = text.find("#[cfg(test)]") {
            sources.push((path, text[at..].to_string()));
        }
    }
    sources
}

fn name((a, b): (u32, u32)) -> String {
    format!("C-{a}.{b}")
}

#[test]
fn every_rule_id_is_cited_by_a_test() {
    let defined = defined_ids();
    assert!(defined.len() >= 30, "found only {} rule ids: has the rules' format changed?", defined.len());
    let mut cited = BTreeSet::new();
    for (_, text) in test_sources() {
        cited.extend(cited_ids(&text));
    }
    let uncited: Vec<String> = defined.difference(&cited).copied().map(name).collect();
    assert!(uncited.is_empty(), "rule ids no test cites: {uncited:?}");
    let unknown: Vec<String> = cited.difference(&defined).copied().map(name).collect();
    assert!(unknown.is_empty(), "tests cite ids the rules do not define: {unknown:?}");
}

#[test]
fn the_scanner_reads_ids_and_names() {
    let ids = |t: &str| cited_ids(t).into_iter().map(name).collect::<Vec<_>>();
    assert_eq!(ids("// C-5.3 and C-11.2, not C-5 or C-1.x"), ["C-5.3", "C-11.2"]);
    assert_eq!(ids("fn c6_2_c9_3_ten_refills() {}"), ["C-6.2", "C-9.3"]);
    assert_eq!(ids("fn abc1_1_x() {} let c1_1 = 3; c11_2_x"), ["C-11.2"]);
    assert_eq!(ids("C-1.10"), ["C-1.10"]);
    assert_eq!(id_at(b"12.3 x", b'.'), Some((12, 3)));
    assert_eq!(id_at(b"12. x", b'.'), None);
}
