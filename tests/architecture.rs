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

/// The code of a source file: comments dropped, and the test module at its
/// end (from `#[cfg(test)]` on), where tests may name the engines they use.
fn code_of(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// One engine registry (docs/architecture.md, "The engine registry"): of the
/// front ends' sources, only the registry names both engines' crates, plus
/// the terminal's input (`play.rs`, which reads Caravan's coordinates); the
/// only other file to name an engine is the binding's Caravan-only
/// compact-action API.
#[test]
fn the_front_ends_reach_the_engines_through_the_registry() {
    let front_ends = ["boardgame-cli", "boardgame-server", "boardgame-lab", "boardgame-sim", "boardgame-py"];
    let mut both = BTreeSet::new();
    let mut any = BTreeSet::new();
    for name in front_ends {
        let mut files = Vec::new();
        rust_files(&root().join("crates").join(name).join("src"), &mut files);
        assert!(!files.is_empty(), "{name}: the sources were found");
        for file in files {
            let code = code_of(&std::fs::read_to_string(&file).unwrap());
            let names = ["korovan_core", "caravan_core"].map(|c| code.contains(c));
            let rel = file.strip_prefix(root()).unwrap().to_string_lossy().replace('\\', "/");
            if names.iter().all(|&n| n) {
                both.insert(rel.clone());
            }
            if names.iter().any(|&n| n) {
                any.insert(rel);
            }
        }
    }
    let registry = "crates/boardgame-sim/src/games.rs";
    let terminal = "crates/boardgame-cli/src/play.rs";
    let compact = "crates/boardgame-py/src/compact.rs";
    assert_eq!(both, BTreeSet::from([registry.to_string(), terminal.to_string()]), "files naming both engines");
    assert_eq!(
        any,
        BTreeSet::from([registry.to_string(), terminal.to_string(), compact.to_string()]),
        "files naming an engine"
    );
    // The front ends' manifests: only the registry's crate and the CLI
    // (for the terminal's input) depend on both engines; the binding on
    // Caravan alone (its compact actions).
    for name in front_ends {
        let deps = dependencies(name);
        let engines: Vec<&str> = ["korovan-core", "caravan-core"].into_iter().filter(|e| deps.contains(*e)).collect();
        let expected: &[&str] = match name {
            "boardgame-sim" | "boardgame-cli" => &["korovan-core", "caravan-core"],
            "boardgame-py" => &["caravan-core"],
            _ => &[],
        };
        assert_eq!(engines, expected, "{name}'s engine dependencies");
    }
}

/// A thin binding (docs/architecture.md, "A thin binding"): boardgame-py
/// converts types and releases the GIL; what it runs lives in the
/// libraries, so its sources stay under 2,000 lines.
#[test]
fn the_binding_is_thin() {
    let mut files = Vec::new();
    rust_files(&root().join("crates/boardgame-py/src"), &mut files);
    assert!(!files.is_empty(), "the binding's sources were found");
    let lines: usize = files.iter().map(|f| std::fs::read_to_string(f).unwrap().lines().count()).sum();
    assert!(lines < 2000, "crates/boardgame-py/src has {lines} lines: move what is not conversion into a library");
}

/// The check above reads code, not comments or tests.
#[test]
fn code_of_drops_comments_and_the_test_module() {
    let text = "use a::korovan_core;\n// caravan_core\n  /// caravan_core\nfn f() {}\n#[cfg(test)]\nmod tests { caravan_core }\n";
    let code = code_of(text);
    assert!(code.contains("korovan_core") && code.contains("fn f()"));
    assert!(!code.contains("caravan_core"));
}
