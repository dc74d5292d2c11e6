//! `pack lint` (SPEC §9.5, §9.7): everything that can be said about one pack without a graph.
//! The pack is loaded strictly (P801–P809 and the registry lint L501–L510, located in its
//! files), composed with the packs it requires on the pack path (the pack's own folder first:
//! P802/P803 against the base registry and those packs, P804 `kernel_abi`/`requires`, P805,
//! P806/P807 with a lock or trusted keys), its `rules` read (P840) and their selectors matched
//! against that composition (P841), each `plugins` entry checked statically (P870–P872,
//! located at the entry `/plugins/<id>` in `pack.json`), each `fixtures` entry's shape and
//! files (P801, P808; `pack test` runs them), and its fragment files (SPEC §9.3: each loaded
//! strictly, nested uses resolved and acyclic, interfaces consistent — P801, P811, P821–P828
//! and R101 for a node's unknown primitive in the fragment file, through
//! `fragment_expand::lint_fragments`).

use super::{Findings, ToolError, require_pack_dir};
use crate::pack::compose::{Base, Composition};
use crate::pack::{Pack, manifest};
use crate::pack_rules::{self, Owners, PackRule};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a lint runs with.
#[derive(Debug, Clone, Default)]
pub struct LintOptions {
    /// More pack-path entries, for the packs this one requires (the pack's own folder is
    /// searched first).
    pub pack_path: Vec<PathBuf>,
    /// Trusted pack signers (`ed25519:` + hex): every pack loaded must be signed by one.
    pub trusted: Vec<String>,
}

/// The outcome of linting one pack.
#[derive(Debug)]
pub struct Linted {
    pub findings: Findings,
    /// The pack, when it loaded.
    pub pack: Option<Arc<Pack>>,
    /// The pack composed with the base registry and the packs it requires, when that held.
    pub composition: Option<Arc<Composition>>,
    /// Its valid rules.
    pub rules: Vec<PackRule>,
    /// Its well-formed `fixtures` entries (`pack test` runs them).
    pub fixtures: Vec<super::fixtures::Fixture>,
}

/// Lint the pack in `dir` over `base`.
pub fn lint(dir: &Path, base: Base, options: &LintOptions) -> Result<Linted, ToolError> {
    require_pack_dir(dir)?;
    let mut findings = Findings::new();
    let pack = match manifest::load(dir, base.registry()) {
        Ok(p) => Arc::new(p),
        Err(errors) => {
            findings.extend_errors(errors);
            return Ok(Linted {
                findings,
                pack: None,
                composition: None,
                rules: Vec::new(),
                fixtures: Vec::new(),
            });
        }
    };
    findings.touch(&pack.manifest, Some(pack.source.source_arc()));
    let base_registry = base.clone();
    let composition = compose(&pack, base, options, &mut findings);
    let mut rules = Vec::new();
    if let Some(raw) = &pack.rules {
        let (parsed, invalid) = pack_rules::parse_rules(&pack.name, &raw.value, &raw.pointer);
        for d in invalid {
            findings.push_in_pack(&pack, d);
        }
        if let Some(c) = &composition {
            let owners = owners(c);
            for d in pack_rules::lint_selectors(&parsed, &c.registry, &owners) {
                findings.push_in_pack(&pack, d);
            }
        }
        rules = parsed;
    }
    check_plugins(&pack, &mut findings);
    check_fragments(
        &pack,
        composition.as_deref(),
        base_registry.registry(),
        &mut findings,
    );
    let fixtures = super::fixtures::entries(&pack, &mut findings);
    Ok(Linted {
        findings,
        pack: Some(pack),
        composition,
        rules,
        fixtures,
    })
}

/// The owner of every pack primitive of a composition (the rules' `pack` selector field).
pub fn owners(c: &Composition) -> Owners {
    Owners::new(
        c.packs
            .iter()
            .map(|p| (p.name.as_str(), p.roots.as_slice())),
    )
}

/// The pack with the packs it requires, resolved on the pack path (its own folder first).
fn compose(
    pack: &Arc<Pack>,
    base: Base,
    options: &LintOptions,
    findings: &mut Findings,
) -> Option<Arc<Composition>> {
    match super::compose_with_requirements(pack, base, &options.pack_path, options.trusted.clone())
    {
        Ok(c) => Some(c),
        Err(located) => {
            findings.extend_located(located, &pack.manifest, Some(&pack.source));
            None
        }
    }
}

/// The pack's fragment files, checked against its composition (the base registry alone when
/// the pack did not compose): each finding in the fragment file it is about.
fn check_fragments(
    pack: &Arc<Pack>,
    composition: Option<&Composition>,
    base: &crate::registry::Registry,
    findings: &mut Findings,
) {
    if pack.fragment_files.is_empty() {
        return;
    }
    let own = [pack.clone()];
    let (registry, packs): (&crate::registry::Registry, &[Arc<Pack>]) = match composition {
        Some(c) => (&c.registry, &c.packs),
        None => (base, &own),
    };
    let empty = match crate::json::parse(b"{}", &crate::json::Limits::default()) {
        Ok(p) => p,
        Err(_) => return,
    };
    let declared = [pack.name.clone()];
    let cx = crate::pack::fragment_expand::Context {
        file: &pack.manifest,
        parsed: &empty,
        registry,
        packs,
        declared: &declared,
        on_path: &[],
    };
    for d in crate::pack::fragment_expand::lint_fragments(pack, &cx) {
        // Without the composition the pack's own primitives are not in `registry`: an unknown
        // primitive would be every one (the composition's findings say why it failed).
        if composition.is_none() && d.code == crate::codes::R101.code {
            continue;
        }
        let file = d.file.clone().unwrap_or_else(|| pack.manifest.clone());
        let source = d
            .sources
            .iter()
            .find(|(f, _)| *f == file)
            .map(|(_, s)| s.clone());
        findings.push(&file, source, d);
    }
}

/// P870–P872 for each plugin, at its entry in `pack.json`.
fn check_plugins(pack: &Pack, findings: &mut Findings) {
    for (id, rel) in &pack.plugin_files {
        let Some(contract) = pack.written_primitive(id) else {
            continue; // P808 already: a plugin for no primitive of the pack
        };
        let pointer = crate::json::pointer::push("/plugins", id);
        for f in crate::plugin::check_plugin_file(&pack.dir.join(rel), &contract) {
            let mut message = format!("plugin `{rel}` for `{id}`: {}", f.message);
            if let Some(offset) = f.offset {
                message.push_str(&format!(" (at byte {offset} of the plugin)"));
            }
            let d = f.code.at(pointer.clone(), message);
            findings.push_in_pack(pack, d);
        }
    }
}
