//! The shape of the workspace (docs/architecture.md): within every crate the
//! modules stand above what they use (no import cycle), and the two engines
//! follow one module template.
//!
//! The import graph is read from the sources: a module uses another when it
//! names `crate::other::…`, or `crate::Item` where the crate root re-exports
//! `Item` from `other` (`pub use other::{Item, …}`); paths in comments (doc
//! links) are not imports. A folder module
//! (`src/search/`) counts as one module. `cargo run --example module_graph`
//! prints the same graphs as Mermaid for the docs.

#[path = "../examples/module_graph/graph.rs"]
mod graph;

use std::collections::BTreeSet;
use std::path::Path;

use graph::{crate_graph, find_cycle};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn no_crate_has_an_import_cycle_between_its_modules() {
    let crates = [
        "boardgame-kit",
        "korovan-core",
        "caravan-core",
        "boardgame-sim",
        "boardgame-cli",
        "boardgame-server",
        "boardgame-lab",
    ];
    for name in crates {
        let graph = crate_graph(&root().join("crates").join(name).join("src"));
        assert!(graph.len() > 3, "{name}: the sources were found: {graph:?}");
        if let Some(cycle) = find_cycle(&graph) {
            panic!("{name}: import cycle between modules: {}", cycle.join(" -> "));
        }
    }
}

/// The names in the `[dependencies]` table of a crate's manifest (optional
/// ones included; dev- and build-dependencies not).
fn dependencies(name: &str) -> BTreeSet<String> {
    let manifest = std::fs::read_to_string(root().join("crates").join(name).join("Cargo.toml")).unwrap();
    let mut in_deps = false;
    let mut deps = BTreeSet::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
        } else if in_deps && !line.is_empty() && !line.starts_with('#') {
            let key = line.split(['=', '.']).next().unwrap_or("").trim();
            deps.insert(key.to_string());
        }
    }
    deps
}

/// What `name` depends on, directly or through the workspace's crates.
fn closure(name: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![name.to_string()];
    while let Some(c) = todo.pop() {
        for d in dependencies(&c) {
            if seen.insert(d.clone()) && root().join("crates").join(&d).is_dir() {
                todo.push(d);
            }
        }
    }
    seen
}

/// The layers of docs/architecture.md: the libraries stand below the
/// binary; the Python binding stands on the libraries alone (no command-line
/// parser, no progress bar, no web server or balance lab in the wheel).
#[test]
fn the_binding_and_the_libraries_stand_below_the_command() {
    let binding = closure("boardgame-py");
    for crate_ in ["boardgame-kit", "korovan-core", "caravan-core", "boardgame-sim"] {
        assert!(binding.contains(crate_), "boardgame-py reaches {crate_}: {binding:?}");
    }
    for above in ["boardgame-cli", "boardgame-server", "boardgame-lab", "clap", "indicatif", "axum", "tokio"] {
        assert!(!binding.contains(above), "boardgame-py depends on {above}: {binding:?}");
    }
    for lib in ["boardgame-kit", "korovan-core", "caravan-core", "boardgame-sim"] {
        let deps = closure(lib);
        for above in ["boardgame-cli", "boardgame-py", "boardgame-server", "boardgame-lab", "clap", "indicatif"] {
            assert!(!deps.contains(above), "{lib} depends on {above}: {deps:?}");
        }
    }
    assert!(closure("boardgame-cli").contains("boardgame-sim"), "the command simulates with the library");
}

#[test]
fn the_engines_share_one_module_template() {
    let template: BTreeSet<&str> = [
        "lib",
        "config",
        "action",
        "error",
        "state",
        "rules",
        "knowledge",
        "observation",
        "display",
        "setup",
        "game",
        "bot",
        "net",
        "words",
    ]
    .into_iter()
    .collect();
    // Modules an engine may add for its own geometry or encodings, named in
    // docs/architecture.md.
    let engine_specific: BTreeSet<&str> = ["board", "compact"].into_iter().collect();
    for name in ["korovan-core", "caravan-core"] {
        let graph = crate_graph(&root().join("crates").join(name).join("src"));
        let modules: BTreeSet<&str> = graph.keys().map(String::as_str).collect();
        let missing: Vec<_> = template.difference(&modules).collect();
        let extra: Vec<_> = modules.difference(&template).filter(|m| !engine_specific.contains(*m)).collect();
        assert!(missing.is_empty() && extra.is_empty(), "{name}: missing {missing:?}, not in the template {extra:?}");
    }
}

#[test]
fn the_graph_reader_follows_re_exports_and_finds_cycles() {
    let dir = std::env::temp_dir().join(format!("module-graph-test-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("deep")).unwrap();
    std::fs::write(dir.join("lib.rs"), "mod a;\nmod b;\nmod deep;\npub use a::{Alpha, Beta};\npub use b::Gamma;\n")
        .unwrap();
    std::fs::write(dir.join("a.rs"), "use crate::Gamma;\npub struct Alpha;\npub struct Beta;\n").unwrap();
    std::fs::write(dir.join("b.rs"), "pub struct Gamma;\nfn f() { crate::deep::x() }\n/// [`crate::a::Alpha`]\n")
        .unwrap();
    std::fs::write(dir.join("deep").join("mod.rs"), "use crate::{Alpha, b::Gamma};\n").unwrap();
    let graph = crate_graph(&dir);
    assert_eq!(graph["a"], BTreeSet::from(["b".to_string()]));
    assert_eq!(graph["b"], BTreeSet::from(["deep".to_string()]));
    assert_eq!(graph["deep"], BTreeSet::from(["a".to_string(), "b".to_string()]));
    assert!(graph["lib"].contains("a") && graph["lib"].contains("deep"));
    let cycle = find_cycle(&graph).expect("a -> b -> deep -> a");
    assert_eq!(cycle.first(), cycle.last());
    std::fs::write(dir.join("b.rs"), "pub struct Gamma;\n").unwrap();
    assert_eq!(find_cycle(&crate_graph(&dir)), None);
    std::fs::remove_dir_all(&dir).unwrap();
}
