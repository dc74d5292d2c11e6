//! Pack rules (SPEC §9.4): the validators and policy hooks a pack states as data, checked on
//! every graph that declares the pack, over the same control-flow [`Model`] the A4xx rules use.
//! This module owns reading a pack's `rules` array ([`parse_rules`], P840 for an invalid rule),
//! the selectors ([`Selector`]), the four kinds ([`Kind`], checked in `check.rs`, each finding
//! coded `PACK/RULE` with its witness path), and the selector lint against an effective
//! registry ([`lint_selectors`], P841). It knows nothing of how a pack is found or loaded: the
//! caller hands it the `rules` value and its pointer in `pack.json`, and the owner of every
//! primitive ([`Owners`], for the `pack` selector field). The engine checks whatever graph it
//! is given, so a graph expanded from fragments is checked as one graph.
//!
//! Choices where SPEC §9.4 is silent (also in `docs/pack-rules.md`):
//! - A rule's `severity` defaults to `error`; `id` is `^[a-z][a-z0-9_-]*$`, unique in its pack.
//! - A selector has at least one field; `outcome` is allowed in `through` and `unless_through`
//!   (where a path passes a node): passing means taking that `branches` edge of a matching
//!   node. A `"*"` edge never counts as an outcome (it may carry any outcome; as for grants in
//!   §3.4).
//! - The offending node never counts as its own passage: `requires_before` asks for a `through`
//!   node strictly before the target, `requires_after` strictly after it; `forbids_path` looks
//!   at the nodes strictly between its ends, and a path has at least one edge.
//! - `requires_before` looks at targets reachable from `entry`; `requires_after`, `forbids_path`
//!   and `bounded` at every node (unreachable ones are S203's).
//! - `bounded` fires for a target node without `max_visits` (unbounded) or above the bound.

mod check;
pub mod codes;
pub mod effective;
mod parse;

pub use check::check;
pub use effective::EffectiveRules;
pub use parse::{is_pack_name, is_rule_id, parse_rules};

use crate::codes::{CodeName, Severity};
use crate::diagnostic::Diagnostic;
use crate::graph::Model;
use crate::registry::{Authority, Class, Effect, Primitive, Registry};
use serde_json::Value;

/// One valid rule of a pack.
#[derive(Debug, Clone)]
pub struct PackRule {
    /// The pack that states it.
    pub pack: String,
    /// Its `id`, unique in the pack.
    pub id: String,
    /// `PACK/RULE`: the code of its findings.
    pub code: CodeName,
    pub severity: Severity,
    pub kind: Kind,
    pub summary: Option<String>,
    pub help: Option<String>,
    /// Its pointer in `pack.json` (`/rules/0`).
    pub pointer: String,
    /// The rule as written, for `explain` and `pack diff`.
    pub definition: Value,
}

impl PackRule {
    /// What `primgraph explain PACK/RULE` prints: the code, severity and summary, where the
    /// rule is written, its help and its definition as written, laid out as a code's
    /// documentation.
    pub fn describe(&self, pack: &crate::pack::Pack) -> String {
        let span = pack.source.locate_nearest(&self.pointer);
        let mut out = format!(
            "{} ({}): {}\n\nA rule of pack {} (`{}`, {}:{}:{}).\n",
            self.code,
            self.severity.as_str(),
            self.summary.as_deref().unwrap_or("(no summary)"),
            pack.label(),
            self.kind.name(),
            pack.manifest,
            span.line,
            span.column,
        );
        if let Some(help) = &self.help {
            out.push_str(&format!("\n## Help\n\n{help}\n"));
        }
        let definition =
            serde_json::to_string_pretty(&self.definition).unwrap_or_else(|_| "{}".into());
        out.push_str(&format!("\n## Definition\n\n```json\n{definition}\n```\n"));
        out.push_str(&format!(
            "\nIts severity can be changed in primgraph.toml: `[severity]` `\"{}\" = \"warning\"`.\n",
            self.code
        ));
        out
    }

    /// The rule's entry in a SARIF log's `tool.driver.rules`: its summary, its help and where
    /// to read it (`primgraph explain PACK/RULE`), the explanation as markdown, and the
    /// severity in force — `setting` is the configuration's global level for the code, if any
    /// (`off` keeps the rule's level and marks the entry disabled).
    pub fn rule_entry(
        &self,
        pack: &crate::pack::Pack,
        setting: Option<crate::diagnostic::Level>,
    ) -> crate::diagnostic::sarif::RuleEntry {
        let code = self.code.as_str();
        let summary = self
            .summary
            .clone()
            .unwrap_or_else(|| format!("A `{}` rule of pack {}.", self.kind.name(), pack.name));
        let full = format!(
            "{summary} (a `{}` rule of pack {}, {})",
            self.kind.name(),
            pack.label(),
            pack.manifest
        );
        let explain = format!(
            "Run `primgraph explain {code}` (with pack {} on the pack path) for the rule's \
             definition.",
            pack.name
        );
        let help_text = match &self.help {
            Some(help) => format!("{help}\n\n{explain}"),
            None => explain.clone(),
        };
        let help_markdown = format!("{}\n{explain}\n", self.describe(pack));
        let mut properties = serde_json::Map::new();
        properties.insert("pack".into(), Value::from(pack.label()));
        properties.insert("kind".into(), Value::from(self.kind.name()));
        properties.insert("definition".into(), self.definition.clone());
        crate::diagnostic::sarif::RuleEntry {
            id: code.to_string(),
            name: crate::diagnostic::sarif::rule_name(&self.id, code),
            short_description: summary,
            full_description: full,
            help_text,
            help_markdown,
            level: setting.and_then(|l| l.severity()).unwrap_or(self.severity),
            enabled: setting != Some(crate::diagnostic::Level::Off),
            properties,
        }
    }
}

/// What a rule requires (SPEC §9.4).
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// Every path from `entry` to a `target` node passes a `through` node.
    RequiresBefore { target: Selector, through: Passage },
    /// Every path from a `target` node to a terminal passes a `through` node (on_error edges
    /// count).
    RequiresAfter { target: Selector, through: Passage },
    /// No path from a `from` node to a `to` node avoids every `unless_through` node.
    ForbidsPath {
        from: Selector,
        to: Selector,
        unless_through: Option<Passage>,
    },
    /// Every `target` node has `max_visits` at most the bound.
    Bounded { target: Selector, max_visits: u32 },
}

impl Kind {
    pub fn name(&self) -> &'static str {
        match self {
            Kind::RequiresBefore { .. } => "requires_before",
            Kind::RequiresAfter { .. } => "requires_after",
            Kind::ForbidsPath { .. } => "forbids_path",
            Kind::Bounded { .. } => "bounded",
        }
    }

    /// Every selector of the rule with its member name, in the order written in SPEC §9.4.
    pub fn selectors(&self) -> Vec<(&'static str, &Selector)> {
        match self {
            Kind::RequiresBefore { target, through } | Kind::RequiresAfter { target, through } => {
                vec![("target", target), ("through", &through.0)]
            }
            Kind::ForbidsPath {
                from,
                to,
                unless_through,
            } => {
                let mut out = vec![("from", from), ("to", to)];
                if let Some(p) = unless_through {
                    out.push(("unless_through", &p.0));
                }
                out
            }
            Kind::Bounded { target, .. } => vec![("target", target)],
        }
    }
}

/// A selector: an object whose fields all must hold for a node's primitive.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selector {
    /// An ID, an alias, or `prefix.*`.
    pub primitive: Option<String>,
    pub family: Option<String>,
    pub class: Option<Class>,
    pub authority: Option<Authority>,
    pub effect: Option<Effect>,
    /// The pack that owns the primitive.
    pub pack: Option<String>,
    /// Only where a path passes a node: passing means taking this `branches` edge of it.
    pub outcome: Option<String>,
}

/// What a path must pass (`through`) or may pass to be excused (`unless_through`): a node the
/// selector matches, or with `outcome`, that branch of such a node.
#[derive(Debug, Clone, PartialEq)]
pub struct Passage(pub Selector);

impl Passage {
    pub(crate) fn of(selector: Selector) -> Passage {
        Passage(selector)
    }

    /// The outcome whose branch must be taken, when the passage is an edge.
    pub fn outcome(&self) -> Option<&str> {
        self.0.outcome.as_deref()
    }
}

/// Which pack owns a primitive: the pack whose `roots` hold the first segment of its ID
/// (SPEC §9.1; roots are unique across a composition). Kernel primitives have none.
#[derive(Debug, Clone, Default)]
pub struct Owners {
    /// (root, pack name), sorted by root.
    roots: Vec<(String, String)>,
}

impl Owners {
    /// From (pack name, its roots) pairs.
    pub fn new<'a>(packs: impl IntoIterator<Item = (&'a str, &'a [String])>) -> Owners {
        let mut roots: Vec<(String, String)> = packs
            .into_iter()
            .flat_map(|(pack, roots)| roots.iter().map(move |r| (r.clone(), pack.to_string())))
            .collect();
        roots.sort();
        Owners { roots }
    }

    /// The pack that owns the primitive with this ID.
    pub fn pack_of(&self, id: &str) -> Option<&str> {
        let root = id.split('.').next()?;
        self.roots
            .binary_search_by(|(r, _)| r.as_str().cmp(root))
            .ok()
            .map(|i| self.roots[i].1.as_str())
    }
}

impl Selector {
    /// Whether the primitive satisfies every field but `outcome`.
    pub fn matches(&self, prim: &Primitive, owners: &Owners) -> bool {
        self.primitive
            .as_deref()
            .is_none_or(|p| primitive_matches(p, &prim.id, &prim.alias))
            && self.family.as_deref().is_none_or(|f| prim.family == f)
            && self.class.is_none_or(|c| prim.class == c)
            && self.authority.is_none_or(|a| prim.authority == a)
            && self.effect.is_none_or(|e| prim.has_effect(e))
            && self
                .pack
                .as_deref()
                .is_none_or(|p| owners.pack_of(&prim.id) == Some(p))
    }

    /// Whether the primitive satisfies the selector as a passage: every field, and for
    /// `outcome`, the primitive declares that outcome.
    pub fn matches_passage(&self, prim: &Primitive, owners: &Owners) -> bool {
        self.matches(prim, owners)
            && self.outcome.as_deref().is_none_or(|o| {
                prim.outcomes
                    .as_ref()
                    .is_some_and(|outcomes| outcomes.iter().any(|x| x == o))
            })
    }

    /// The selector as one line of JSON, fields in SPEC order: `{"primitive": "pyrepo.land"}`.
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        let mut field = |name: &str, value: Option<&str>| {
            if let Some(v) = value {
                parts.push(format!("\"{name}\": {}", Value::from(v)));
            }
        };
        field("primitive", self.primitive.as_deref());
        field("family", self.family.as_deref());
        field("class", self.class.map(Class::as_str));
        field("authority", self.authority.map(Authority::as_str));
        field("effect", self.effect.map(Effect::as_str));
        field("pack", self.pack.as_deref());
        field("outcome", self.outcome.as_deref());
        format!("{{{}}}", parts.join(", "))
    }
}

/// Whether a primitive selector (an ID, an alias or `prefix.*`) names the primitive.
pub fn primitive_matches(selector: &str, id: &str, alias: &str) -> bool {
    if let Some(prefix) = selector.strip_suffix(".*") {
        return id
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with('.'));
    }
    selector == id || selector == alias
}

/// P841 for every selector of `rules` that matches no primitive of `registry` (the effective
/// registry of the composition), at the selector in `pack.json`.
pub fn lint_selectors(rules: &[PackRule], registry: &Registry, owners: &Owners) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for rule in rules {
        for (member, selector) in rule.kind.selectors() {
            let passage = matches!(member, "through" | "unless_through");
            let any = registry.primitives().iter().any(|p| {
                if passage {
                    selector.matches_passage(p, owners)
                } else {
                    selector.matches(p, owners)
                }
            });
            if !any {
                out.push(crate::codes::P841.at(
                    format!("{}/{member}", rule.pointer),
                    format!(
                        "rule `{}`: `{member}` {} matches no primitive of the effective registry",
                        rule.id,
                        selector.describe()
                    ),
                ));
            }
        }
    }
    out
}

/// Check every rule on a graph's model; findings are unsorted (the driver sorts).
pub fn check_all(rules: &[PackRule], model: &Model<'_>, owners: &Owners) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for rule in rules {
        check(rule, model, owners, &mut out);
    }
    out
}
