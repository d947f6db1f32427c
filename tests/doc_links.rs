//! Every relative link of the documentation resolves: in README.md,
//! python/README.md, the crates' READMEs and docs/**/*.md, each link to a
//! file of the repository names a file or folder that exists, and each
//! `#anchor` (into the same page or another Markdown page) names a heading
//! of that page, as GitHub derives its anchor.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The Markdown files whose links are checked.
fn documents() -> Vec<PathBuf> {
    let mut out = vec![root().join("README.md"), root().join("python/README.md"), root().join("src/README.md")];
    if let Ok(crates) = std::fs::read_dir(root().join("crates")) {
        for entry in crates.flatten() {
            let readme = entry.path().join("README.md");
            if readme.is_file() {
                out.push(readme);
            }
        }
    }
    let mut stack = vec![root().join("docs")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    out.retain(|p| p.is_file());
    out.sort();
    out
}

/// The lines of `text` outside fenced code blocks, with inline code spans
/// blanked (a link inside backticks is no link).
fn prose_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let marker = if trimmed.starts_with("```") {
            Some("```")
        } else if trimmed.starts_with("~~~") {
            Some("~~~")
        } else {
            None
        };
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(f), Some(m)) if f == m => fence = None,
            (None, None) => out.push(blank_code_spans(line)),
            _ => {}
        }
    }
    out
}

/// `line` with the inside of every `code span` replaced by spaces.
fn blank_code_spans(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
            out.push(c);
        } else if in_code {
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

/// GitHub's anchor of a heading's text: lower case, every character but
/// letters, digits, spaces, `-` and `_` dropped, spaces turned into `-`.
fn slug(heading: &str) -> String {
    // Links in a heading count by their text: `[text](target)` -> `text`.
    let mut text = String::new();
    let mut rest = heading;
    while let Some(open) = rest.find('[') {
        text.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match (after.find("]("), after.find(')')) {
            (Some(close), Some(end)) if close < end => {
                text.push_str(&after[..close]);
                rest = &after[end + 1..];
            }
            _ => {
                text.push('[');
                rest = after;
            }
        }
    }
    text.push_str(rest);
    text.trim()
        .chars()
        .flat_map(char::to_lowercase)
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown page: its headings' slugs (a repeated one
/// numbered `-1`, `-2`, … as GitHub does) and explicit `id`/`name` anchors.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    let mut fence: Option<&str> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            let m = &trimmed[..3];
            fence = match fence {
                None => Some(if m == "```" { "```" } else { "~~~" }),
                Some(f) if f == m => None,
                other => other,
            };
            continue;
        }
        if fence.is_some() {
            continue;
        }
        for key in ["id=\"", "name=\""] {
            let mut rest = line;
            while let Some(at) = rest.find(key) {
                let after = &rest[at + key.len()..];
                if let Some(end) = after.find('"') {
                    out.insert(after[..end].to_string());
                }
                rest = after;
            }
        }
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            let base = slug(line[hashes..].trim().trim_end_matches('#'));
            let n = seen.entry(base.clone()).or_insert(0);
            out.insert(if *n == 0 { base.clone() } else { format!("{base}-{n}") });
            *n += 1;
        }
    }
    out
}

/// The targets of the links on `line`: inline links and images
/// `[text](target "title")`, and reference definitions `[label]: target`.
fn link_targets(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        // The target ends at the parenthesis that closes the link.
        let mut depth = 0usize;
        let mut end = after.len();
        for (i, c) in after.char_indices() {
            match c {
                '(' => depth += 1,
                ')' if depth == 0 => {
                    end = i;
                    break;
                }
                ')' => depth -= 1,
                _ => {}
            }
        }
        let target = after[..end].trim();
        let target = target.split_once(' ').map_or(target, |(t, _)| t);
        out.push(target.trim_matches(|c| c == '<' || c == '>').to_string());
        rest = &after[end.min(after.len())..];
    }
    let trimmed = line.trim_start();
    if let Some(close) = trimmed.strip_prefix('[').and_then(|r| r.find("]: ")) {
        let target = trimmed[close + 4..].split_whitespace().next().unwrap_or("");
        out.push(target.to_string());
    }
    out
}

/// Whether `target` leaves the repository (a URL, a mail address).
fn is_external(target: &str) -> bool {
    target.contains("://") || target.starts_with("mailto:") || target.starts_with("//")
}

/// The broken links of every document, as `file: target (why)`.
fn broken_links() -> (usize, Vec<String>) {
    let mut checked = 0;
    let mut broken = Vec::new();
    let mut cache: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
    for doc in documents() {
        let Ok(text) = std::fs::read_to_string(&doc) else { continue };
        let dir = doc.parent().unwrap_or(root());
        let name = doc.strip_prefix(root()).unwrap_or(&doc).display().to_string();
        for (k, line) in prose_lines(&text).iter().enumerate() {
            for target in link_targets(line) {
                if target.is_empty() || is_external(&target) {
                    continue;
                }
                checked += 1;
                let (path, anchor) = match target.split_once('#') {
                    Some((p, a)) => (p, Some(a)),
                    None => (target.as_str(), None),
                };
                let file = if path.is_empty() { doc.clone() } else { dir.join(path) };
                if !file.exists() {
                    broken.push(format!("{name}:{}: {target} (no such file)", k + 1));
                    continue;
                }
                let Some(anchor) = anchor else { continue };
                if file.extension().is_none_or(|e| e != "md") {
                    continue;
                }
                let found = cache
                    .entry(file.clone())
                    .or_insert_with(|| std::fs::read_to_string(&file).map(|t| anchors(&t)).unwrap_or_default());
                if !found.contains(anchor) {
                    broken.push(format!("{name}:{}: {target} (no heading with that anchor)", k + 1));
                }
            }
        }
    }
    (checked, broken)
}

#[test]
fn every_relative_link_and_anchor_of_the_docs_resolves() {
    let (checked, broken) = broken_links();
    assert!(checked > 50, "only {checked} relative links found: the documents were not read");
    assert!(broken.is_empty(), "{} broken links:\n{}", broken.len(), broken.join("\n"));
}

#[test]
fn anchors_follow_github() {
    let page = "# The `boardgame` binary\n## Korovan: PPO (from a fresh network)\n## Notes\n## Notes\n```\n# not a heading\n```\n<a id=\"here\"></a>\n";
    let found = anchors(page);
    for a in ["the-boardgame-binary", "korovan-ppo-from-a-fresh-network", "notes", "notes-1", "here"] {
        assert!(found.contains(a), "{a} in {found:?}");
    }
    assert!(!found.contains("not-a-heading"));
    assert_eq!(slug("[docs/serve.md](docs/serve.md): the web table"), "docsservemd-the-web-table");
}

#[test]
fn links_are_found_and_code_is_skipped() {
    let lines = prose_lines(
        "see [a](docs/a.md#x) and ![b](img/b.png \"t\")\n`[c](nowhere.md)`\n```\n[d](nowhere.md)\n```\n[e]: docs/e.md\n",
    );
    let targets: Vec<String> = lines.iter().flat_map(|l| link_targets(l)).collect();
    assert_eq!(targets, ["docs/a.md#x", "img/b.png", "docs/e.md"]);
    assert!(is_external("https://docs.rs/boardgames") && !is_external("docs/python.md"));
}
