//! The command's modules stand above what they use: no import cycle between
//! them (the crate root counts as a module: an item of `main.rs` used by a
//! module is an edge to the root, which declares and uses every module).
//! The command is a library (`lib.rs`: the modules the Python binding shares)
//! and the binary (`main.rs`, which declares its own modules and imports the
//! library's); a `#[macro_export]` macro counts as an item of the module
//! that defines it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The modules `text` refers to through `crate::…` paths (doc links
/// included); an exported macro counts as its module's (`macros`: name →
/// module), other items of the root count as `main`.
fn references(text: &str, modules: &BTreeSet<String>, macros: &BTreeMap<String, String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        let heads: Vec<&str> = if let Some(group) = rest.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            inner.split(',').map(|p| p.trim().split("::").next().unwrap_or("")).collect()
        } else {
            let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
            vec![&rest[..end]]
        };
        for head in heads.into_iter().filter(|h| !h.is_empty()) {
            let module = if modules.contains(head) {
                head.to_string()
            } else {
                macros.get(head).cloned().unwrap_or_else(|| "main".to_string())
            };
            out.insert(module);
        }
    }
    out
}

/// The module graph of the command's `src/`: module → modules it uses.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(&src).expect("src/ is readable") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "rs") {
            let name = path.file_stem().and_then(|s| s.to_str()).expect("utf-8 name").to_string();
            files.insert(name, std::fs::read_to_string(&path).expect("source is readable"));
        }
    }
    let roots = ["main", "lib"];
    let modules: BTreeSet<String> = files.keys().filter(|k| !roots.contains(&k.as_str())).cloned().collect();
    let mut macros = BTreeMap::new();
    for (name, text) in &files {
        for part in text.split("#[macro_export]").skip(1) {
            let after = part.trim_start().strip_prefix("macro_rules!").unwrap_or("").trim_start();
            let end = after.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(after.len());
            if end > 0 {
                macros.insert(after[..end].to_string(), name.clone());
            }
        }
    }
    // The library's modules the binary imports (`use boardgame_cli::{a, b};`).
    let imported: BTreeSet<String> = files
        .get("main")
        .and_then(|t| t.split("use boardgame_cli::{").nth(1))
        .and_then(|g| g.split('}').next())
        .map(|g| g.split(',').map(|m| m.trim().to_string()).collect())
        .unwrap_or_default();
    let mut graph = BTreeMap::new();
    for (name, text) in &files {
        let mut uses = references(text, &modules, &macros);
        if roots.contains(&name.as_str()) {
            // A root declares its modules (`mod x;`, `pub mod x;`) and
            // dispatches to them; the binary's root also uses the library's.
            uses.extend(modules.iter().filter(|m| text.contains(&format!("mod {m};"))).cloned());
            if name == "main" {
                uses.extend(modules.iter().filter(|m| imported.contains(*m)).cloned());
            }
        }
        uses.remove(name);
        graph.insert(name.clone(), uses);
    }
    graph
}

/// A cycle of `graph`, if there is one (depth-first search).
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
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

#[test]
fn the_reference_parser_sees_grouped_and_plain_paths() {
    let modules: BTreeSet<String> = ["agents", "games"].into_iter().map(String::from).collect();
    let macros = BTreeMap::from([("with_game".to_string(), "games".to_string())]);
    let seen = references("use crate::{CliError, agents};\n/// [x](crate::games::X)\n", &modules, &macros);
    assert_eq!(seen, ["agents", "games", "main"].into_iter().map(String::from).collect());
    let seen = references("pub use crate::with_game;\n", &modules, &macros);
    assert_eq!(seen, ["games"].into_iter().map(String::from).collect());
    let mut cyclic = BTreeMap::new();
    cyclic.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    cyclic.insert("b".to_string(), BTreeSet::from(["a".to_string()]));
    assert!(find_cycle(&cyclic).is_some());
}

#[test]
fn the_modules_of_the_command_have_no_import_cycle() {
    let graph = graph();
    assert!(graph.len() > 5, "the sources were found: {graph:?}");
    assert!(graph["main"].contains("games"), "{graph:?}");
    if let Some(cycle) = find_cycle(&graph) {
        panic!("import cycle between the command's modules: {}", cycle.join(" -> "));
    }
}
