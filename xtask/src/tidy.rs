//! `cargo xtask tidy`: the house rules as checks, each finding named by file and line.
//!
//! Run by `cargo xtask tidy`, by `.ci/run` and by `xtask/tests/tidy.rs` (which also plants one
//! violation of each rule in a scratch tree and sees it found). The rules:
//!
//! * [`Rule::Sql`]: SQL (a statement literal, `sql!`, `sql_in!`, `sqlx::query*`) only in `src/storage`.
//! * [`Rule::Panics`]: no `unwrap`, `expect`, `panic!`, `todo!`, `unimplemented!` or
//!   `unreachable!` in the server's code ([`SERVER_ROOTS`]) outside tests.
//! * [`Rule::ModuleDoc`]: every Rust source file opens with a module doc (`//!`).
//! * [`Rule::ModulesImportHttp`]: `src/modules` never names `crate::http` (the transport sits above).
//! * [`Rule::StalePath`]: every repository path README.md and ARCHITECTURE.md name exists.
//! * [`Rule::LongFile`]: no hand-written source file over [`MAX_FILE_LINES`] lines.
//! * [`Rule::LongFunction`]: no function in the server's code over [`MAX_FUNCTION_LINES`] lines.

use std::{
    fmt,
    path::{Path, PathBuf},
};

use anyhow::{Context, Result};
use proc_macro2::{Span, TokenStream, TokenTree};
use syn::{
    spanned::Spanned,
    visit::{self, Visit},
};

/// The longest a hand-written source file may be.
pub const MAX_FILE_LINES: usize = 600;
/// The longest a function in the server's code may be, signature to closing brace.
pub const MAX_FUNCTION_LINES: usize = 80;
/// The server's code: what answers requests, held to the rules of `src/` (no panics, short
/// functions, SQL only in `src/storage`).
pub const SERVER_ROOTS: &[&str] = &["src", "crates/core-repr/src"];

/// The folders whose Rust files tidy reads (relative to the root; missing ones are skipped).
const RUST_ROOTS: &[&str] = &[
    "src",
    "tests",
    "benches",
    "crates",
    "conformance",
    "contract-tests",
    "xtask/src",
    "xtask/tests",
    "generated",
    "fuzz/fuzz_targets",
];
/// The documents whose paths must exist.
const MAPS: &[&str] = &["README.md", "ARCHITECTURE.md"];
/// Top-level entries a path in a map may start with (anything else in backticks is not a path).
const TOP_LEVEL: &[&str] = &[
    "src/",
    "tests/",
    "benches/",
    "crates/",
    "conformance/",
    "contract-tests/",
    "xtask/",
    "generated/",
    "fuzz/",
    "migrations/",
    "openapi/",
    "demo/",
    ".ci/",
];

/// A house rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// SQL outside `src/storage`.
    Sql,
    /// A panic reachable outside tests.
    Panics,
    /// A source file without a module doc.
    ModuleDoc,
    /// `src/modules` naming the transport.
    ModulesImportHttp,
    /// A path in README.md or ARCHITECTURE.md that does not exist.
    StalePath,
    /// A source file over [`MAX_FILE_LINES`] lines.
    LongFile,
    /// A function over [`MAX_FUNCTION_LINES`] lines.
    LongFunction,
}

/// One breach of a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The file, relative to the root.
    pub path: PathBuf,
    /// The line (1-based).
    pub line: usize,
    /// The rule broken.
    pub rule: Rule,
    /// What was found.
    pub detail: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: {:?}: {}",
            self.path.display(),
            self.line,
            self.rule,
            self.detail
        )
    }
}

/// Runs every rule over the tree at `root`.
pub fn check(root: &Path) -> Result<Vec<Finding>> {
    let mut findings = Vec::new();
    for folder in RUST_ROOTS {
        for path in rust_files(&root.join(folder))? {
            let relative = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("reading {}", path.display()))?;
            check_rust(&relative, &text, &mut findings)?;
        }
    }
    for map in MAPS {
        let path = root.join(map);
        if let Ok(text) = std::fs::read_to_string(&path) {
            check_map(root, Path::new(map), &text, &mut findings);
        }
    }
    Ok(findings)
}

/// Runs `check` and fails with every finding.
pub fn run(root: &Path) -> Result<()> {
    let findings = check(root)?;
    if findings.is_empty() {
        eprintln!("xtask: tidy: every house rule holds");
        return Ok(());
    }
    for finding in &findings {
        eprintln!("{finding}");
    }
    anyhow::bail!("tidy: {} findings", findings.len())
}

fn rust_files(folder: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut pending = vec![folder.to_path_buf()];
    while let Some(folder) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries {
            let path = entry?.path();
            let name = path
                .file_name()
                .and_then(|name| name.to_str())
                .unwrap_or("");
            if path.is_dir() {
                if !matches!(name, "target" | "node_modules" | "snapshots" | "corpus") {
                    pending.push(path);
                }
            } else if name.ends_with(".rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

fn check_rust(path: &Path, text: &str, findings: &mut Vec<Finding>) -> Result<()> {
    let generated = path.starts_with("generated");
    let in_src = SERVER_ROOTS.iter().any(|root| path.starts_with(root));
    let file = syn::parse_file(text).with_context(|| format!("parsing {}", path.display()))?;
    let mut found = |line: usize, rule: Rule, detail: String| {
        findings.push(Finding {
            path: path.to_path_buf(),
            line,
            rule,
            detail,
        })
    };
    let documented = file
        .attrs
        .iter()
        .any(|attr| attr.path().is_ident("doc") && matches!(attr.style, syn::AttrStyle::Inner(_)));
    if !documented {
        found(1, Rule::ModuleDoc, "no module doc (`//!`)".into());
    }
    let lines = text.lines().count();
    if !generated && lines > MAX_FILE_LINES {
        found(
            lines,
            Rule::LongFile,
            format!("{lines} lines (at most {MAX_FILE_LINES})"),
        );
    }
    if in_src {
        let mut visitor = Source {
            storage: path.starts_with("src/storage"),
            modules: path.starts_with("src/modules"),
            tests: 0,
            found: Vec::new(),
        };
        visitor.visit_file(&file);
        for (line, rule, detail) in visitor.found {
            found(line, rule, detail);
        }
    }
    Ok(())
}

/// Walks one file of the server's code.
struct Source {
    storage: bool,
    modules: bool,
    /// How many test items (`#[cfg(test)]`, `#[test]`) enclose the walk.
    tests: usize,
    found: Vec<(usize, Rule, String)>,
}

impl Source {
    fn note(&mut self, span: Span, rule: Rule, detail: String) {
        self.found.push((span.start().line, rule, detail));
    }

    fn long(&mut self, signature: &syn::Signature, block: &syn::Block) {
        let span = signature.fn_token.span;
        let lines = block.brace_token.span.close().end().line + 1 - span.start().line;
        let name = &signature.ident;
        if self.tests == 0 && lines > MAX_FUNCTION_LINES {
            self.note(
                span,
                Rule::LongFunction,
                format!("fn {name} is {lines} lines (at most {MAX_FUNCTION_LINES})"),
            );
        }
    }

    fn literal(&mut self, literal: &syn::LitStr) {
        if !self.storage && is_statement(&literal.value()) {
            self.note(
                literal.span(),
                Rule::Sql,
                format!("SQL outside src/storage: {:.40}", literal.value().trim()),
            );
        }
    }

    /// What a macro's tokens hold that syn does not parse: literals and `.unwrap(`/`.expect(`.
    fn tokens(&mut self, tokens: TokenStream) {
        let mut after_dot = false;
        for tree in tokens {
            match &tree {
                TokenTree::Group(group) => self.tokens(group.stream()),
                TokenTree::Literal(literal) => {
                    if let Ok(text) = syn::parse_str::<syn::LitStr>(&literal.to_string()) {
                        self.literal(&syn::LitStr::new(&text.value(), literal.span()));
                    }
                }
                TokenTree::Ident(ident) if after_dot => self.method(ident),
                TokenTree::Ident(ident)
                    if !self.storage && (ident == "sql" || ident == "sql_in") =>
                {
                    self.note(
                        ident.span(),
                        Rule::Sql,
                        format!("{ident}! outside src/storage"),
                    );
                }
                _ => {}
            }
            after_dot = matches!(&tree, TokenTree::Punct(punct) if punct.as_char() == '.');
        }
    }

    fn method(&mut self, ident: &proc_macro2::Ident) {
        if self.tests == 0 && (ident == "unwrap" || ident == "expect") {
            self.note(
                ident.span(),
                Rule::Panics,
                format!(".{ident}() outside tests"),
            );
        }
    }
}

/// Whether a string literal is an SQL statement.
fn is_statement(text: &str) -> bool {
    const HEADS: &[&str] = &[
        "SELECT ", "INSERT ", "UPDATE ", "DELETE ", "WITH ", "CREATE ", "ALTER ", "DROP ",
        "PRAGMA ",
    ];
    let text = text.trim_start();
    HEADS.iter().any(|head| text.starts_with(head))
}

fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        let path = attr.path();
        if path.is_ident("test")
            || path
                .segments
                .last()
                .is_some_and(|last| last.ident == "test")
        {
            return true;
        }
        path.is_ident("cfg")
            && attr
                .parse_args::<syn::Meta>()
                .is_ok_and(|meta| meta.path().is_ident("test"))
    })
}

impl<'ast> Visit<'ast> for Source {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        let test = is_test(&item.attrs);
        self.tests += usize::from(test);
        visit::visit_item_mod(self, item);
        self.tests -= usize::from(test);
    }

    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        let test = is_test(&item.attrs);
        self.tests += usize::from(test);
        self.long(&item.sig, &item.block);
        visit::visit_item_fn(self, item);
        self.tests -= usize::from(test);
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        let test = is_test(&item.attrs);
        self.tests += usize::from(test);
        self.long(&item.sig, &item.block);
        visit::visit_impl_item_fn(self, item);
        self.tests -= usize::from(test);
    }

    fn visit_item_impl(&mut self, item: &'ast syn::ItemImpl) {
        let test = is_test(&item.attrs);
        self.tests += usize::from(test);
        visit::visit_item_impl(self, item);
        self.tests -= usize::from(test);
    }

    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {
        // Doc comments and attribute arguments are prose, not code.
    }

    fn visit_lit_str(&mut self, literal: &'ast syn::LitStr) {
        self.literal(literal);
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        self.method(&call.method);
        visit::visit_expr_method_call(self, call);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let name = mac
            .path
            .segments
            .last()
            .map(|segment| segment.ident.to_string())
            .unwrap_or_default();
        match name.as_str() {
            "panic" | "todo" | "unimplemented" | "unreachable" if self.tests == 0 => {
                self.note(mac.span(), Rule::Panics, format!("{name}! outside tests"));
            }
            "sql" | "sql_in" if !self.storage => {
                self.note(
                    mac.span(),
                    Rule::Sql,
                    format!("{name}! outside src/storage"),
                );
            }
            _ => {}
        }
        if name != "macro_rules" {
            self.tokens(mac.tokens.clone());
        }
        visit::visit_macro(self, mac);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        self.named(&names, path.span());
        visit::visit_path(self, path);
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let mut prefix = Vec::new();
        self.use_tree(&item.tree, &mut prefix);
    }
}

impl Source {
    fn use_tree(&mut self, tree: &syn::UseTree, prefix: &mut Vec<String>) {
        match tree {
            syn::UseTree::Path(path) => {
                prefix.push(path.ident.to_string());
                self.use_tree(&path.tree, prefix);
                prefix.pop();
            }
            syn::UseTree::Group(group) => {
                for tree in &group.items {
                    self.use_tree(tree, prefix);
                }
            }
            syn::UseTree::Name(name) => self.used(prefix, &name.ident),
            syn::UseTree::Rename(rename) => self.used(prefix, &rename.ident),
            syn::UseTree::Glob(glob) => {
                let ident = syn::Ident::new("_", glob.star_token.span);
                self.used(prefix, &ident);
            }
        }
    }

    fn used(&mut self, prefix: &[String], last: &syn::Ident) {
        let mut names: Vec<String> = prefix.to_vec();
        names.push(last.to_string());
        self.named(&names, last.span());
    }

    /// The rules a path (in code or in a `use`) can break: `sqlx::query*` outside storage,
    /// `crate::http` in `src/modules`.
    fn named(&mut self, names: &[String], span: Span) {
        let starts = |first: &str, second: &dyn Fn(&str) -> bool| {
            names.first().is_some_and(|name| name == first)
                && names.get(1).is_some_and(|name| second(name))
        };
        if !self.storage && starts("sqlx", &|name| name.starts_with("query")) {
            let detail = format!("{} outside src/storage", names.join("::"));
            self.note(span, Rule::Sql, detail);
        }
        if self.modules && starts("crate", &|name| name == "http") {
            let detail = format!("src/modules names {}", names.join("::"));
            self.note(span, Rule::ModulesImportHttp, detail);
        }
    }
}

/// Checks that every repository path a map names exists.
fn check_map(root: &Path, path: &Path, text: &str, findings: &mut Vec<Finding>) {
    for (index, line) in text.lines().enumerate() {
        for candidate in mentioned(line) {
            if !root.join(&candidate).exists() {
                findings.push(Finding {
                    path: path.to_path_buf(),
                    line: index + 1,
                    rule: Rule::StalePath,
                    detail: format!("`{candidate}` does not exist"),
                });
            }
        }
    }
}

/// The repository paths a line of Markdown names: in backticks or as link targets.
fn mentioned(line: &str) -> Vec<String> {
    let mut spans: Vec<&str> = line.split('`').skip(1).step_by(2).collect();
    let mut rest = line;
    while let Some(start) = rest.find("](") {
        rest = &rest[start + 2..];
        if let Some(end) = rest.find(')') {
            spans.push(&rest[..end]);
        }
    }
    spans
        .into_iter()
        .filter_map(|span| {
            // `src/http/listen.rs::Activity`, `tests/plans.rs:12` and `src/storage/` name paths.
            let span = span.split("::").next().unwrap_or(span);
            let span = span.split(['#', ':']).next().unwrap_or(span);
            let span = span.trim_end_matches('/');
            let plain = !span.is_empty()
                && !span.contains(|c: char| c.is_whitespace() || "<>*{}$|,".contains(c));
            let known = TOP_LEVEL
                .iter()
                .any(|top| span.starts_with(top) || *top == format!("{span}/"))
                || MAPS.contains(&span)
                || (!span.contains('/') && span.ends_with(".toml"));
            (plain && known).then(|| span.to_string())
        })
        .collect()
}
