//! `pack show DIR` (SPEC §9.1): everything a loaded pack holds, its derived capability
//! requirements (the primitives its fragments run) and the effects its primitives declare
//! (what a runtime hosting them must provide), with its environment. One JSON document
//! ([`to_json`], `--format json`) and a human page ([`to_text`]) from the same data.

use crate::pack::Pack;
use crate::pack::compose::Base;
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

/// The effects of the pack's primitives, sorted (as the §1.2 names).
pub fn effects(pack: &Pack) -> Vec<&'static str> {
    let set: BTreeSet<&'static str> = pack
        .primitives
        .iter()
        .flat_map(|p| p.contract.effects.iter().map(|e| e.as_str()))
        .collect();
    set.into_iter().collect()
}

/// The rules as written: `{id, kind, severity, summary}` each (whatever parses).
fn rules(pack: &Pack) -> Vec<Value> {
    let Some(items) = pack.rules.as_ref().and_then(|r| r.value.as_array()) else {
        return Vec::new();
    };
    items
        .iter()
        .map(|r| {
            let mut o = Map::new();
            for k in ["id", "kind", "severity", "summary"] {
                if let Some(v) = r.get(k) {
                    o.insert(k.into(), v.clone());
                }
            }
            Value::Object(o)
        })
        .collect()
}

/// The packs `pack` requires, resolved on the pack path (its own folder first, then
/// `pack_path`) as `pack lint` resolves them: what its fragments' nested uses of other packs'
/// fragments are read from. Empty when they do not resolve (`pack lint` says why); `pack show`
/// then lists what its own fragment files run.
pub fn required_packs(pack: &Pack, base: Base, pack_path: &[PathBuf]) -> Vec<Arc<Pack>> {
    if pack.requires.is_empty() {
        return Vec::new();
    }
    super::compose_with_requirements(pack, base, pack_path, Vec::new())
        .map(|c| c.packs.clone())
        .unwrap_or_default()
}

/// The `pack show --format json` document.
pub fn to_json(pack: &Pack, required: &[Arc<Pack>]) -> Value {
    let primitives: Vec<Value> = pack
        .primitives
        .iter()
        .map(|p| {
            let c = &p.contract;
            json!({
                "id": c.id,
                "alias": c.alias,
                "family": c.family,
                "class": c.class.as_str(),
                "authority": c.authority.as_str(),
                "summary": c.summary,
                "effects": c.effects.iter().map(|e| e.as_str()).collect::<Vec<_>>(),
                "outcomes": c.outcomes,
                "decision_set": p.decision_set,
                "grants": c.grants,
                "evidence": c.evidence,
                "failure_modes": c.failure_modes,
                "fallback": c.fallback,
                "commands": p.commands,
                "requires_authorization": c.requires_authorization,
                "requires_verifier": c.requires_verifier,
                "terminal": c.terminal,
                "plugin": pack.plugin_files.get(&c.id),
            })
        })
        .collect();
    let requires: Map<String, Value> = pack
        .requires
        .iter()
        .map(|r| (r.name.clone(), Value::from(r.range.text.clone())))
        .collect();
    let commands: Map<String, Value> = pack
        .commands
        .iter()
        .map(|(name, c)| {
            (
                name.clone(),
                json!({"argv": c.argv, "effects": c.effects.iter().map(|e| e.as_str()).collect::<Vec<_>>()}),
            )
        })
        .collect();
    json!({
        "pack": pack.name,
        "version": pack.version.to_string(),
        "summary": pack.summary,
        "dir": pack.dir.display().to_string(),
        "digest": pack.digest(),
        "signer": pack.signature.as_ref().map(|s| s.signer.clone()),
        "kernel_abi": pack.kernel_abi.text,
        "requires": requires,
        "roots": pack.roots,
        "families": pack.families.iter().map(|f| json!({
            "name": f.name, "prefix": f.prefix, "group": f.group, "summary": f.summary,
        })).collect::<Vec<_>>(),
        "primitives": primitives,
        "decision_sets": pack.decision_sets,
        "error_classes": pack.error_classes,
        "schemas": pack.schemas,
        "commands": commands,
        "context_rules": pack.context_rules.iter().map(|r| json!({
            "primitive": r.primitive, "read": r.read, "deny": r.deny,
        })).collect::<Vec<_>>(),
        "environment": pack.environment.as_ref().map(|e| json!({
            "requires": e.requires, "network": e.network,
        })),
        "effects": effects(pack),
        "capability_requirements": pack.capability_requirements_in(required),
        "fragments": pack.fragment_files,
        "rules": rules(pack),
        "fixtures": pack.fixtures.as_ref().map_or(Value::Array(Vec::new()), |f| f.value.clone()),
        "plugins": pack.plugin_files,
    })
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_string()
    } else {
        items.join(", ")
    }
}

/// The human page.
pub fn to_text(pack: &Pack, required: &[Arc<Pack>]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{} {}", pack.name, pack.version);
    if let Some(summary) = &pack.summary {
        let _ = writeln!(s, "  {summary}");
    }
    let _ = writeln!(s, "  dir:        {}", pack.dir.display());
    let _ = writeln!(s, "  digest:     {}", pack.digest());
    let _ = writeln!(
        s,
        "  signed by:  {}",
        pack.signature
            .as_ref()
            .map_or("unsigned", |sig| sig.signer.as_str())
    );
    let _ = writeln!(s, "  kernel_abi: {}", pack.kernel_abi.text);
    let requires: Vec<String> = pack
        .requires
        .iter()
        .map(|r| format!("{} {}", r.name, r.range.text))
        .collect();
    let _ = writeln!(s, "  requires:   {}", list(&requires));
    let _ = writeln!(s, "  roots:      {}", list(&pack.roots));
    if !pack.families.is_empty() {
        let _ = writeln!(s, "\nfamilies:");
        for f in &pack.families {
            let _ = writeln!(
                s,
                "  {}: prefix {}, group {}: {}",
                f.name, f.prefix, f.group, f.summary
            );
        }
    }
    let _ = writeln!(s, "\nprimitives ({}):", pack.primitives.len());
    for p in &pack.primitives {
        let c = &p.contract;
        let effects: Vec<String> = c.effects.iter().map(|e| e.as_str().to_string()).collect();
        let _ = writeln!(
            s,
            "  {:<28} {:<24} {}/{}  effects: {}",
            c.id,
            c.alias,
            c.class.as_str(),
            c.authority.as_str(),
            list(&effects)
        );
        if let Some(outcomes) = &c.outcomes {
            let from = p
                .decision_set
                .as_ref()
                .map_or(String::new(), |d| format!(" (decision set {d})"));
            let _ = writeln!(s, "  {:<28} outcomes: {}{from}", "", outcomes.join(", "));
        }
        if !p.commands.is_empty() {
            let _ = writeln!(s, "  {:<28} commands: {}", "", p.commands.join(", "));
        }
        if let Some(plugin) = pack.plugin_files.get(&c.id) {
            let _ = writeln!(s, "  {:<28} plugin: {plugin}", "");
        }
    }
    if !pack.decision_sets.is_empty() {
        let _ = writeln!(s, "\ndecision sets:");
        for (name, outcomes) in &pack.decision_sets {
            let _ = writeln!(s, "  {name}: {}", outcomes.join(", "));
        }
    }
    let _ = writeln!(s, "\nerror classes: {}", list(&pack.error_classes));
    if !pack.schemas.is_empty() {
        let _ = writeln!(s, "\nschemas:");
        for (name, path) in &pack.schemas {
            let _ = writeln!(s, "  {name}: {path}");
        }
    }
    if !pack.commands.is_empty() {
        let _ = writeln!(s, "\ncommands:");
        for (name, c) in &pack.commands {
            let effects: Vec<String> = c.effects.iter().map(|e| e.as_str().to_string()).collect();
            let _ = writeln!(
                s,
                "  {name}: {}  effects: {}",
                c.argv.join(" "),
                list(&effects)
            );
        }
    }
    if !pack.context_rules.is_empty() {
        let _ = writeln!(s, "\ncontext rules:");
        for r in &pack.context_rules {
            let _ = writeln!(
                s,
                "  {}: read {}; deny {}",
                r.primitive,
                list(&r.read),
                list(&r.deny)
            );
        }
    }
    let _ = writeln!(s, "\nenvironment:");
    match &pack.environment {
        None => {
            let _ = writeln!(s, "  not stated");
        }
        Some(e) => {
            let _ = writeln!(s, "  requires: {}", list(&e.requires));
            let network = match e.network {
                Some(true) => "allowed",
                Some(false) => "none",
                None => "not stated",
            };
            let _ = writeln!(s, "  network:  {network}");
        }
    }
    let effects: Vec<String> = effects(pack).into_iter().map(str::to_string).collect();
    let _ = writeln!(s, "  effects its primitives declare: {}", list(&effects));
    let _ = writeln!(s, "\nfragments: {}", list(&pack.fragment_files));
    let _ = writeln!(
        s,
        "\ncapability requirements (primitives its fragments run): {}",
        list(&pack.capability_requirements_in(required))
    );
    let rules = rules(pack);
    if !rules.is_empty() {
        let _ = writeln!(s, "\nrules:");
        for r in &rules {
            let field = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("?").to_string();
            let severity = r.get("severity").and_then(Value::as_str).unwrap_or("error");
            let _ = writeln!(
                s,
                "  {}/{} ({}, {severity})",
                pack.name,
                field("id"),
                field("kind")
            );
        }
    }
    let fixtures = pack
        .fixtures
        .as_ref()
        .and_then(|f| f.value.as_array())
        .map_or(0, Vec::len);
    let _ = writeln!(s, "\nfixtures: {fixtures}");
    s
}
