//! Reads a crate's module import graph from its sources (shared by
//! `tests/architecture.rs` and the `module_graph` example).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module → the modules it uses, for the crate whose `src/` is `src`. The
/// root (`lib.rs` or `main.rs`) is the module `lib`; a folder is one module.
/// Code only: paths in comments (doc links) are not imports.
pub fn crate_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    for entry in std::fs::read_dir(src).into_iter().flatten().flatten() {
        let path = entry.path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()).map(str::to_string) else { continue };
        if path.is_dir() {
            let mut all = String::new();
            collect(&path, &mut all);
            texts.insert(stem, all);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let name = if stem == "main" { "lib".to_string() } else { stem };
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            texts.entry(name).or_default().push_str(&text);
        }
    }
    let modules: BTreeSet<String> = texts.keys().filter(|k| *k != "lib").cloned().collect();
    // items the root re-exports, by the module that defines them
    let mut owner: BTreeMap<String, String> = BTreeMap::new();
    if let Some(root) = texts.get("lib") {
        for statement in root.split(';') {
            let statement = statement.trim();
            let Some(at) = statement.find("pub use ") else { continue };
            let rest = &statement[at + "pub use ".len()..];
            let Some((module, items)) = rest.split_once("::") else { continue };
            if !modules.contains(module) {
                continue;
            }
            let items = items.trim().trim_start_matches('{').trim_end_matches('}');
            for item in items.split(',') {
                let item = item.trim();
                let name = item.rsplit(" as ").next().unwrap_or(item).rsplit("::").next().unwrap_or(item);
                if !name.is_empty() {
                    owner.insert(name.to_string(), module.to_string());
                }
            }
        }
    }
    let mut graph = BTreeMap::new();
    for (name, text) in &texts {
        let mut uses = BTreeSet::new();
        for head in crate_paths(&code_of(text)) {
            if modules.contains(&head) {
                uses.insert(head);
            } else if let Some(m) = owner.get(&head) {
                uses.insert(m.clone());
            }
        }
        if name == "lib" {
            uses.extend(modules.iter().filter(|m| text.contains(&format!("mod {m};"))).cloned());
        }
        uses.remove(name);
        graph.insert(name.clone(), uses);
    }
    graph
}

/// `text` without its comment lines (doc links are not imports).
fn code_of(text: &str) -> String {
    text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

fn collect(dir: &Path, out: &mut String) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push_str(&std::fs::read_to_string(&path).unwrap_or_default());
            out.push('\n');
        }
    }
}

/// The first segment after every `crate::` in `text`, grouped imports
/// (`crate::{a::X, Y}`) included.
fn crate_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let mut end = group.len();
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = i;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let inner = &group[..end];
            let mut level = 0;
            let mut start = 0;
            for (i, c) in inner.char_indices().chain(std::iter::once((inner.len(), ','))) {
                match c {
                    '{' => level += 1,
                    '}' => level -= 1,
                    ',' if level == 0 => {
                        let part = inner[start..i].trim();
                        let head = part.split("::").next().unwrap_or("").trim();
                        if !head.is_empty() {
                            out.push(head.to_string());
                        }
                        start = i + 1;
                    }
                    _ => {}
                }
            }
        } else {
            let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
            out.push(rest[..end].to_string());
        }
    }
    out
}

/// A cycle of `graph` as a path that starts and ends at one module, if any.
pub fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(c) = visit(next, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph.keys().find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}
