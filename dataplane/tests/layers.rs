//! The crate's shape, read from its sources: imports between top-level
//! modules only point down the layers below, and no function is so long a
//! newcomer cannot hold it in view.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// Top-level modules, lowest layer first. A module may use any module of a
/// lower layer, none of its own layer or above.
const LAYERS: &[&[&str]] = &[
    &["error", "sync", "clock", "lateness"],
    &["program"],
    &["packet"],
    &["pipeline"],
    &["tm", "links", "ports", "cpu", "pre"],
    &["monitor"],
    &["switch"],
    &["python"],
];

const MAX_FUNCTION_LINES: usize = 80;

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every source file with its path relative to src/.
fn sources() -> Vec<(String, String)> {
    let mut files = Vec::new();
    rust_files(&src_dir(), &mut files);
    files.sort();
    files
        .iter()
        .map(|f| {
            let rel = f.strip_prefix(src_dir()).unwrap();
            (
                rel.to_string_lossy().into_owned(),
                fs::read_to_string(f).unwrap(),
            )
        })
        .collect()
}

/// The top-level module a file belongs to; None for lib.rs, the crate root.
fn module_of(rel: &str) -> Option<&str> {
    let first = rel.split('/').next()?;
    match first.strip_suffix(".rs") {
        Some("lib") => None,
        Some(m) => Some(m),
        None => Some(first),
    }
}

fn ident_at(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The top-level modules named after each `crate::` of one line of code:
/// `crate::a::x`, and each first segment of `crate::{a::x, b}`.
fn crate_refs(line: &str) -> Vec<String> {
    let code = line.split("//").next().unwrap_or("");
    let mut refs = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        // `$crate::` and `_crate::` are other paths.
        let before = code[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        match rest.strip_prefix('{') {
            Some(group) => refs.extend(group_heads(group)),
            None => refs.push(ident_at(rest).to_owned()),
        }
    }
    refs.retain(|r| !r.is_empty() && r != "self");
    refs
}

/// First segments of the items of a `{...}` group, up to its closing brace.
fn group_heads(group: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let (mut depth, mut at_item) = (0, true);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => at_item = true,
            c if at_item && !c.is_whitespace() => {
                heads.push(ident_at(&group[i..]).to_owned());
                at_item = false;
            }
            _ => {}
        }
    }
    heads
}

/// `use crate::{...}` groups may span lines: each statement joined on one.
fn statements(text: &str) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut open = false;
    for (n, line) in text.lines().enumerate() {
        if open {
            let last = out.last_mut().unwrap();
            last.1.push(' ');
            last.1.push_str(line.split("//").next().unwrap_or(""));
        } else {
            out.push((n + 1, line.to_owned()));
        }
        let joined = &out.last().unwrap().1;
        open = joined.trim_start().starts_with("use ") && !joined.contains(';');
    }
    out
}

/// An import from one top-level module to another, where it is written.
#[derive(Debug, PartialEq)]
struct Edge {
    file: String,
    line: usize,
    from: String,
    to: String,
}

fn edges() -> Vec<Edge> {
    let mut out = Vec::new();
    for (file, text) in sources() {
        let Some(from) = module_of(&file) else {
            continue;
        };
        for (line, stmt) in statements(&text) {
            for to in crate_refs(&stmt) {
                if to != from {
                    out.push(Edge {
                        file: file.clone(),
                        line,
                        from: from.to_owned(),
                        to,
                    });
                }
            }
        }
    }
    out
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// Each edge that does not point to a lower layer, as a message.
fn upward_or_sideways(edges: &[Edge]) -> Vec<String> {
    edges
        .iter()
        .filter_map(|e| {
            let why = match (layer_of(&e.from), layer_of(&e.to)) {
                (Some(a), Some(b)) if b < a => return None,
                (None, _) => format!("`{}` is in no layer", e.from),
                (_, None) => format!("`{}` is in no layer", e.to),
                _ => "not to a lower layer".to_owned(),
            };
            Some(format!(
                "src/{}:{}: {} -> {}: {why}",
                e.file, e.line, e.from, e.to
            ))
        })
        .collect()
}

#[test]
fn imports_only_point_down_the_layers() {
    let edges = edges();
    assert!(edges.len() > 50, "too few imports read: {edges:?}");
    let bad = upward_or_sideways(&edges);
    assert!(
        bad.is_empty(),
        "imports against the layers:\n{}",
        bad.join("\n")
    );
}

#[test]
fn every_top_level_module_has_a_layer() {
    let modules: BTreeSet<String> = sources()
        .iter()
        .filter_map(|(f, _)| module_of(f).map(str::to_owned))
        .collect();
    let missing: Vec<_> = modules.iter().filter(|m| layer_of(m).is_none()).collect();
    assert!(
        missing.is_empty(),
        "modules missing from LAYERS: {missing:?}"
    );
}

fn edge(from: &str, to: &str) -> Edge {
    Edge {
        file: format!("{from}.rs"),
        line: 1,
        from: from.to_owned(),
        to: to.to_owned(),
    }
}

#[test]
fn the_layer_check_names_upward_and_sideways_imports() {
    let edges = [
        edge("switch", "pipeline"),
        edge("packet", "pipeline"),
        edge("tm", "links"),
        edge("nowhere", "error"),
    ];
    assert_eq!(
        upward_or_sideways(&edges),
        [
            "src/packet.rs:1: packet -> pipeline: not to a lower layer",
            "src/tm.rs:1: tm -> links: not to a lower layer",
            "src/nowhere.rs:1: nowhere -> error: `nowhere` is in no layer",
        ]
    );
}

#[test]
fn crate_paths_are_read_from_uses_groups_and_code() {
    let text = "use crate::a::b;\nuse crate::{\n    c::{d, e},\n    f,\n};\nlet x = crate::g::h(); // crate::comment\n$crate::i";
    let refs: Vec<_> = statements(text)
        .iter()
        .flat_map(|(_, s)| crate_refs(s))
        .collect();
    assert_eq!(refs, ["a", "c", "f", "g"]);
}

/// Functions longer than the limit, in rustfmt's layout: a function ends at
/// the first `}` at its own indentation.
fn long_functions(file: &str, text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let is_fn = trimmed
            .split_whitespace()
            .take_while(|w| *w != "fn")
            .all(|w| w.starts_with("pub") || ["const", "unsafe", "async", "extern"].contains(&w))
            && trimmed.split_whitespace().any(|w| w == "fn");
        if !is_fn {
            continue;
        }
        // The signature ends at its `{`, or `;` for a declaration.
        let Some(open) = lines[i..]
            .iter()
            .position(|l| l.ends_with('{') || l.ends_with(';') || l.ends_with('}'))
        else {
            continue;
        };
        if lines[i + open].ends_with(';') {
            continue;
        }
        let close = format!("{indent}}}");
        let length = if lines[i + open].ends_with('{') {
            match lines[i + open..].iter().position(|l| *l == close) {
                Some(end) => open + end + 1,
                None => continue,
            }
        } else {
            open + 1
        };
        if length > MAX_FUNCTION_LINES {
            out.push(format!("src/{file}:{}: {length} lines", i + 1));
        }
    }
    out
}

#[test]
fn no_function_is_longer_than_the_limit() {
    let long: Vec<String> = sources()
        .iter()
        .flat_map(|(file, text)| long_functions(file, text))
        .collect();
    assert!(
        long.is_empty(),
        "functions over {MAX_FUNCTION_LINES} lines:\n{}",
        long.join("\n")
    );
}

#[test]
fn the_length_check_counts_to_the_closing_brace_whatever_the_comment() {
    // With its signature and closing brace, a function of 78 body lines is
    // at the limit and one of 79 over it.
    let body = "    x();\n".repeat(MAX_FUNCTION_LINES - 2);
    let at_limit = format!("fn at_limit() {{\n{body}}}\n");
    let over = format!("pub(crate) fn over() {{\n{body}    x();\n}}\n");
    let excused = format!("// Long because of a reason.\nfn excused() {{\n{body}    x();\n}}\n");
    let short = "    pub fn short(&self) -> u8 {\n        1\n    }\n";
    let declared = "    fn declared(&self);\n";
    let text = format!("{at_limit}{over}{excused}{short}{declared}");
    assert_eq!(
        long_functions("x.rs", &text),
        ["src/x.rs:81: 81 lines", "src/x.rs:163: 81 lines"]
    );
}
