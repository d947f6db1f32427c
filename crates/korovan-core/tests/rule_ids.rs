//! Every rule id that docs/rules/korovan.md defines (a list item starting
//! with the id) is cited, in the same written form, by some test of this
//! crate's `tests/` folder — this file excepted.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The rule ids (`K-` followed by `major.minor`) at the start of `text` and
/// everywhere in it, in order of appearance.
fn ids_in(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut out = vec![];
    let mut i = 0;
    while let Some(off) = text[i..].find("K-") {
        let start = i + off;
        let mut j = start + 2;
        let major = j;
        while j < bytes.len() && bytes[j].is_ascii_digit() {
            j += 1;
        }
        if j > major && j + 1 < bytes.len() && bytes[j] == b'.' && bytes[j + 1].is_ascii_digit() {
            j += 1;
            while j < bytes.len() && bytes[j].is_ascii_digit() {
                j += 1;
            }
            out.push(text[start..j].to_string());
        }
        i = start + 2;
    }
    out
}

/// The ids the rules define: the first id of every list item `- K-x.y …`.
fn defined_ids(rules: &str) -> BTreeSet<String> {
    rules
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("- "))
        .filter(|item| item.starts_with("K-"))
        .filter_map(|item| ids_in(item).into_iter().next())
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read tests/") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_rule_id_is_cited_by_a_test() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rules = std::fs::read_to_string(root.join("../../docs/rules/korovan.md")).expect("read the rules");
    let defined = defined_ids(&rules);
    // every section 1..=9 of the rules starts with its rule x.1; a parse
    // that misses one is broken
    for section in 1..=9 {
        assert!(defined.contains(&format!("K-{section}.1")), "section {section} not found: {defined:?}");
    }

    let mut files = vec![];
    rust_files(&root.join("tests"), &mut files);
    let me = root.join("tests").join("rule_ids.rs");
    let mut cited = BTreeSet::new();
    for f in files.iter().filter(|f| **f != me) {
        let text = std::fs::read_to_string(f).expect("read a test");
        cited.extend(ids_in(&text));
    }
    let uncited: Vec<&String> = defined.difference(&cited).collect();
    assert!(uncited.is_empty(), "rule ids no test cites: {uncited:?}");
}

#[test]
fn the_id_scanner_reads_ids() {
    let text = "- K-4.4 first\n  see K-5.5 and K-10.12; not K-6, nor K-x.1, nor K-3.\n- K-6 no minor\n";
    assert_eq!(ids_in(text), ["K-4.4", "K-5.5", "K-10.12"]);
    assert_eq!(defined_ids(text).into_iter().collect::<Vec<_>>(), ["K-4.4"]);
}
