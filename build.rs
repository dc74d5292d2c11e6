//! Build script: reads the frozen registry `registry/kernel-abi-1.0.0.json`, checks every
//! invariant of SPEC §1.3 with the very code `primgraph registry lint` runs (the lint core and
//! the strict JSON parser are included by `#[path]`), and generates into `OUT_DIR`:
//!
//! `isa.rs`: the `Isa` enum (`#[repr(u16)]`, one variant per primitive, in file order) with its
//! accessors, and the perfect-hash table over every ID and alias. (The code table,
//! `src/codes.rs`, is included too: lint findings carry their rows.)
//!
//! A broken invariant fails the build with the code, the primitive and the location.

#[allow(dead_code)]
#[path = "src/codes.rs"]
mod codes;

#[allow(dead_code)]
#[path = "src/json/mod.rs"]
mod json;

#[allow(dead_code)]
#[path = "src/registry/lint/mod.rs"]
mod lint;

#[allow(dead_code)]
#[path = "src/registry/phash.rs"]
mod phash;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const REGISTRY: &str = "registry/kernel-abi-1.0.0.json";

fn main() {
    println!("cargo:rerun-if-changed={REGISTRY}");
    println!("cargo:rerun-if-changed=build.rs");
    for dir in ["src/registry/lint", "src/json"] {
        println!("cargo:rerun-if-changed={dir}");
        if let Ok(entries) = std::fs::read_dir(dir) {
            for e in entries.flatten() {
                println!("cargo:rerun-if-changed={}", e.path().display());
            }
        }
    }
    println!("cargo:rerun-if-changed=src/registry/phash.rs");
    println!("cargo:rerun-if-changed=src/codes.rs");

    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    if let Err(message) = generate(Path::new(REGISTRY), &out_dir) {
        eprintln!("error: {message}");
        panic!("{message}");
    }
}

fn fail(message: String) -> Result<(), String> {
    Err(message)
}

fn generate(registry: &Path, out_dir: &Path) -> Result<(), String> {
    let bytes =
        std::fs::read(registry).map_err(|e| format!("cannot read {}: {e}", registry.display()))?;
    let limits = json::Limits {
        max_bytes: usize::MAX,
        max_depth: 256,
    };
    let parsed = json::parse(&bytes, &limits).map_err(|e| match &e.kind {
        json::JsonErrorKind::DuplicateKey { pointer, .. } => {
            format!(
                "{}: L501 duplicate JSON key at {pointer}: {e}",
                registry.display()
            )
        }
        _ => format!("{}: not valid JSON: {e}", registry.display()),
    })?;
    let root = &parsed.value;
    let findings = lint::lint_value(root).map_err(|e| {
        let span = parsed.locate_nearest(&e.pointer);
        format!("{}:{}:{}: {e}", registry.display(), span.line, span.column)
    })?;
    if !findings.is_empty() {
        let mut message = format!(
            "the frozen registry {} breaks {} invariant(s) of SPEC §1.3 (run `primgraph registry lint {}`):",
            registry.display(),
            findings.len(),
            registry.display()
        );
        for f in &findings {
            let span = parsed.locate_nearest(&f.pointer);
            let _ = write!(
                message,
                "\n  {}:{}:{}: {f}",
                registry.display(),
                span.line,
                span.column
            );
        }
        return fail(message);
    }
    let view = lint::View::new(root).map_err(|e| e.to_string())?;
    let isa = generate_isa(&view)?;
    write(out_dir, "isa.rs", &isa)?;
    Ok(())
}

fn write(out_dir: &Path, name: &str, text: &str) -> Result<(), String> {
    let path = out_dir.join(name);
    std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// `obs.list_files` → `ObsListFiles`.
fn variant_name(id: &str) -> String {
    let mut name = String::new();
    for word in id.split(['.', '_']).filter(|w| !w.is_empty()) {
        let mut chars = word.chars();
        if let Some(c) = chars.next() {
            name.extend(c.to_uppercase());
            name.push_str(chars.as_str());
        }
    }
    name
}

fn class_variant(class: &str) -> Result<&'static str, String> {
    Ok(match class {
        "deterministic" => "Deterministic",
        "s1_decision" => "S1Decision",
        "generation" => "Generation",
        "verification" => "Verification",
        "policy" => "Policy",
        "mutation" => "Mutation",
        "retrieval" => "Retrieval",
        other => return Err(format!("unknown class `{other}`")),
    })
}

fn authority_variant(authority: &str) -> Result<&'static str, String> {
    Ok(match authority {
        "propose" => "Propose",
        "decide" => "Decide",
        "verify" => "Verify",
        "authorize" => "Authorize",
        other => return Err(format!("unknown authority `{other}`")),
    })
}

fn generate_isa(view: &lint::View<'_>) -> Result<String, String> {
    let n = view.primitives.len();
    let mut names: Vec<String> = Vec::with_capacity(n);
    for p in &view.primitives {
        let id = p.label();
        let name = variant_name(id);
        if let Some(other) = names.iter().position(|x| *x == name) {
            return Err(format!(
                "primitive `{id}` and primitive `{}` both map to the Isa variant `{name}`",
                view.primitives[other].label()
            ));
        }
        names.push(name);
    }
    let mut keys: Vec<&str> = view.primitives.iter().map(|p| p.label()).collect();
    keys.extend(view.primitives.iter().map(|p| p.alias));
    let table = phash::build(&keys, |k| (k % n) as u16)
        .map_err(|e| format!("cannot build the lookup table: {e}"))?;

    let mut s = String::new();
    s.push_str("// @generated by build.rs from registry/kernel-abi-1.0.0.json. Do not edit.\n\n");
    s.push_str("/// One variant per primitive of Kernel ABI 1.0.0, in file order; the discriminant is the\n");
    s.push_str("/// primitive's index ([`PrimIdx`](super::PrimIdx)) in the built-in registry.\n");
    s.push_str("#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]\n");
    if n > 0 {
        s.push_str("#[repr(u16)]\n");
    }
    s.push_str("pub enum Isa {\n");
    for (i, (p, name)) in view.primitives.iter().zip(&names).enumerate() {
        let _ = writeln!(s, "    /// `{}` (`{}`)", p.label(), p.alias);
        let _ = writeln!(s, "    {name} = {i},");
    }
    s.push_str("}\n\n");
    s.push_str("impl Isa {\n    /// The index of the primitive in the built-in registry (the discriminant).\n    #[inline]\n    pub fn index(self) -> u16 {\n        match self {\n");
    for (i, name) in names.iter().enumerate() {
        let _ = writeln!(s, "            Isa::{name} => {i},");
    }
    s.push_str("        }\n    }\n}\n\n");
    let _ = writeln!(
        s,
        "/// The number of primitives of the built-in registry.\npub const COUNT: usize = {n};\n"
    );
    let _ = writeln!(
        s,
        "/// The version of the built-in registry.\npub const ABI: &str = {:?};\n",
        "1.0.0"
    );
    let list =
        |f: &dyn Fn(usize) -> String| -> String { (0..n).map(f).collect::<Vec<_>>().join(", ") };
    let _ = writeln!(
        s,
        "const ALL_VARIANTS: [Isa; {n}] = [{}];",
        list(&|i| format!("Isa::{}", names[i]))
    );
    let _ = writeln!(
        s,
        "const IDS: [&str; {n}] = [{}];",
        list(&|i| format!("{:?}", view.primitives[i].label()))
    );
    let _ = writeln!(
        s,
        "const ALIASES: [&str; {n}] = [{}];",
        list(&|i| format!("{:?}", view.primitives[i].alias))
    );
    let _ = writeln!(
        s,
        "const FAMILIES: [&str; {n}] = [{}];",
        list(&|i| format!("{:?}", view.primitives[i].family))
    );
    let mut classes = Vec::with_capacity(n);
    let mut authorities = Vec::with_capacity(n);
    for p in &view.primitives {
        classes.push(format!("Class::{}", class_variant(p.class)?));
        authorities.push(format!("Authority::{}", authority_variant(p.authority)?));
    }
    let _ = writeln!(s, "const CLASSES: [Class; {n}] = [{}];", classes.join(", "));
    let _ = writeln!(
        s,
        "const AUTHORITIES: [Authority; {n}] = [{}];",
        authorities.join(", ")
    );
    let _ = writeln!(
        s,
        "/// Every key of the lookup table: the IDs (index `i`), then the aliases (index `COUNT + i`).\nconst KEYS: [&str; {}] = [{}];",
        2 * n,
        keys.iter()
            .map(|k| format!("{k:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(s, "const PHASH_SEED: u64 = {:#x};", table.seed);
    let _ = writeln!(
        s,
        "static PHASH_SLOTS: [phash::Slot; {}] = [{}];",
        table.slots.len(),
        table
            .slots
            .iter()
            .map(|t| format!(
                "phash::Slot {{ words: {:?}, len: {}, key: {}, value: {} }}",
                t.words, t.len, t.key, t.value
            ))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(
        s,
        "static PHASH_MIDDLES: [[u64; 4]; {}] = [{}];",
        table.middles.len(),
        table
            .middles
            .iter()
            .map(|m| format!("{m:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(s)
}
