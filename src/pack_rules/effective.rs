//! The rules of a composition (SPEC §9.2, §9.4): every loaded pack's `rules`, read once per
//! [`Composition`] with their P840 findings (an invalid rule is left out, the pack's other
//! rules still apply) and the P841 selector lint against the composition's effective
//! registry, each finding located in the pack's `pack.json`. Validation checks the rules on
//! the graph's model ([`EffectiveRules::check`]); `explain PACK/RULE` finds one rule by its
//! code ([`EffectiveRules::find`]).

use super::{Owners, PackRule, lint_selectors, parse_rules};
use crate::diagnostic::Diagnostic;
use crate::graph::Model;
use crate::pack::Pack;
use crate::pack::compose::{Composition, Located};
use std::sync::Arc;

/// The valid rules of every pack of a composition, the owners of its primitives, and the
/// findings about the rules themselves.
#[derive(Debug, Clone, Default)]
pub struct EffectiveRules {
    pub rules: Vec<PackRule>,
    pub owners: Owners,
    /// P840 (an invalid rule) and P841 (a selector matching nothing), in their `pack.json`.
    pub findings: Vec<Located>,
}

impl EffectiveRules {
    /// Read the rules of every pack of `composition` (dependencies first, each pack's rules in
    /// file order) and lint their selectors against its effective registry.
    pub fn of(composition: &Composition) -> EffectiveRules {
        let owners = owners_of(&composition.packs);
        let mut rules = Vec::new();
        let mut findings = Vec::new();
        for pack in &composition.packs {
            let (mine, errors) = rules_of(pack);
            findings.extend(errors.into_iter().map(|d| Located::in_pack(pack, d)));
            findings.extend(
                lint_selectors(&mine, &composition.registry, &owners)
                    .into_iter()
                    .map(|d| Located::in_pack(pack, d)),
            );
            rules.extend(mine);
        }
        EffectiveRules {
            rules,
            owners,
            findings,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty() && self.findings.is_empty()
    }

    /// Every rule's findings on the graph's model, then the findings about the rules (with
    /// their `pack.json` as `file`), appended to `out`.
    pub fn check(&self, model: &Model<'_>, out: &mut Vec<Diagnostic>) {
        out.extend(super::check_all(&self.rules, model, &self.owners));
        out.extend(self.findings.iter().map(|l| {
            let mut d = l.diagnostic.clone();
            d.file = l.file.clone();
            d
        }));
    }

    /// The rule whose code is `code` (`PACK/RULE`, ASCII case-insensitively).
    pub fn find(&self, code: &str) -> Option<&PackRule> {
        self.rules
            .iter()
            .find(|r| r.code.as_str().eq_ignore_ascii_case(code))
    }
}

/// The valid rules of one pack and a P840 for each invalid one (unlocated: pointers into its
/// `pack.json`).
pub fn rules_of(pack: &Pack) -> (Vec<PackRule>, Vec<Diagnostic>) {
    match &pack.rules {
        Some(section) => parse_rules(&pack.name, &section.value, &section.pointer),
        None => (Vec::new(), Vec::new()),
    }
}

/// Which pack owns each root of these packs.
pub fn owners_of(packs: &[Arc<Pack>]) -> Owners {
    Owners::new(packs.iter().map(|p| (p.name.as_str(), p.roots.as_slice())))
}
