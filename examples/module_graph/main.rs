//! Prints the module import graph of every crate of the workspace as
//! Mermaid flowcharts (the drawings of docs/architecture.md):
//! `cargo run --example module_graph`. The crate root (`lib`) is left out
//! (it declares every module); an arrow `a --> b` means `a` uses `b`.

mod graph;

use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut crates: Vec<_> = std::fs::read_dir(root.join("crates"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("src").is_dir())
        .collect();
    crates.sort();
    for dir in crates {
        let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or("?").to_string();
        let graph = graph::crate_graph(&dir.join("src"));
        println!("### {name}\n\n```mermaid\nflowchart TD");
        for (module, uses) in &graph {
            if module == "lib" {
                continue;
            }
            if uses.is_empty() {
                println!("  {module}");
            }
            for u in uses.iter().filter(|u| *u != "lib") {
                println!("  {module} --> {u}");
            }
        }
        println!("```\n");
        if let Some(cycle) = graph::find_cycle(&graph) {
            println!("**cycle:** {}\n", cycle.join(" → "));
        }
    }
}
