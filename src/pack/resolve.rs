//! Resolution (SPEC §9.2): offline and deterministic. For each pack name asked for — by the
//! graph's `packs` or by a selected pack's `requires` — the highest version on the pack path
//! that satisfies every range asking for it; repeated until the selection is stable (a newly
//! selected pack's `requires` can narrow an earlier choice). There is no backtracking: when the
//! highest version that satisfies the current ranges brings a requirement nothing satisfies,
//! that is P804, naming who asked for what. `kernel_abi` is checked against the base registry's
//! `abi` (P804 at that entry); packs that require each other in a cycle are P805. The loop and
//! the cycle search are iterative, and a round follows the `requires` of the packs it selects,
//! so a requirement chain 1,000 deep settles in two rounds (one to select, one to confirm),
//! with or without a lock, in time linear in the chain, not stack.

use super::compose::{Asker, Located};
use super::path::{Candidate, PackPath};
use super::{Pack, Range};
use crate::codes;
use std::collections::BTreeMap;
use std::sync::Arc;

/// One range asking for a pack.
#[derive(Debug, Clone)]
pub struct Request {
    pub asker: Asker,
    pub name: String,
    pub range: Range,
}

/// The packs a resolution selected, dependencies before their dependents.
#[derive(Debug, Clone)]
pub struct Resolution {
    pub packs: Vec<Arc<Pack>>,
    /// Every range that asked, for the lock's `requested`.
    pub requests: Vec<Request>,
}

/// Picks a version: the lock's (when locked) or the highest on the path satisfying `ok`.
pub trait Chooser {
    fn choose(
        &self,
        name: &str,
        path: &PackPath,
        ok: &dyn Fn(&Candidate) -> bool,
    ) -> Option<Candidate>;

    /// How many versions it can choose from beyond the pack path's (a lock's entries): the
    /// rounds of resolution are bounded by what there is to choose.
    fn known(&self) -> usize {
        0
    }
}

/// The unlocked chooser: the highest satisfying version.
pub struct Highest;

impl Chooser for Highest {
    fn choose(
        &self,
        name: &str,
        path: &PackPath,
        ok: &dyn Fn(&Candidate) -> bool,
    ) -> Option<Candidate> {
        path.versions(name).iter().find(|c| ok(c)).cloned()
    }
}

/// Resolve `roots` (the graph's requests) on `path`; `load` loads a chosen candidate (cached by
/// the caller). Errors are located: in the graph (`file: None`) or in a pack's file.
pub fn resolve(
    roots: &[Request],
    path: &PackPath,
    abi: &str,
    chooser: &dyn Chooser,
    load: &dyn Fn(&Candidate) -> super::compose::Loaded,
) -> Result<Resolution, Vec<Located>> {
    let mut selected: BTreeMap<String, Arc<Pack>> = BTreeMap::new();
    // A round chooses a version for every name asked — following the `requires` of each pack
    // it newly selects within the round, so a chain 1,000 deep settles in one round — and
    // rounds repeat until the selection is stable (a pack selected late can narrow a range
    // asked early). Rounds after the first only change versions; the bound guards against a
    // selection that oscillates.
    let bound = 2 * (path.candidates().count() + chooser.known()) + 8;
    for _ in 0..bound {
        let mut requests: Vec<Request> = roots.to_vec();
        for pack in selected.values() {
            requests.extend(requests_of(pack));
        }
        let mut next: BTreeMap<String, Arc<Pack>> = BTreeMap::new();
        let mut errors = Vec::new();
        // Names in the order first asked; each chosen once per round, with every range asking
        // for it when its turn comes.
        let mut queue: std::collections::VecDeque<String> = std::collections::VecDeque::new();
        let mut queued: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
        for r in &requests {
            if queued.insert(r.name.clone()) {
                queue.push_back(r.name.clone());
            }
        }
        let mut by_name: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (i, r) in requests.iter().enumerate() {
            by_name.entry(r.name.clone()).or_default().push(i);
        }
        while let Some(name) = queue.pop_front() {
            let asking: Vec<&Request> = by_name
                .get(&name)
                .map(|ix| ix.iter().map(|&i| &requests[i]).collect())
                .unwrap_or_default();
            let ok = |c: &Candidate| asking.iter().all(|r| r.range.req.matches(&c.version));
            let Some(c) = chooser.choose(&name, path, &ok) else {
                errors.push(unsatisfied(&name, &asking, path));
                errors.extend(unreadable_for(&name, path));
                continue;
            };
            if let Some(p) = selected.get(&name).filter(|p| p.version == c.version) {
                next.insert(name, p.clone());
                continue;
            }
            match load(&c) {
                Ok(p) => {
                    // Newly selected: what it requires is asked for in this round too.
                    for r in requests_of(&p) {
                        if queued.insert(r.name.clone()) {
                            queue.push_back(r.name.clone());
                        }
                        by_name
                            .entry(r.name.clone())
                            .or_default()
                            .push(requests.len());
                        requests.push(r);
                    }
                    next.insert(name, p);
                }
                Err(mut e) => errors.append(&mut e),
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let stable = next.len() == selected.len()
            && next
                .iter()
                .all(|(n, p)| selected.get(n).is_some_and(|q| q.version == p.version));
        selected = next;
        if stable {
            let mut errors = Vec::new();
            for pack in selected.values() {
                if !kernel_ok(&pack.kernel_abi, abi) {
                    errors.push(Located::in_pack(
                        pack,
                        codes::P804.at(
                            pack.kernel_abi.pointer.clone(),
                            format!(
                                "pack {} asks for the registry ABI {} (`kernel_abi`), and the \
                                 registry is ABI {abi}",
                                pack.label(),
                                pack.kernel_abi.text
                            ),
                        ),
                    ));
                }
            }
            if !errors.is_empty() {
                return Err(errors);
            }
            let order = topological(&selected)?;
            let mut requests: Vec<Request> = roots.to_vec();
            for pack in selected.values() {
                requests.extend(requests_of(pack));
            }
            return Ok(Resolution {
                packs: order,
                requests,
            });
        }
    }
    Err(vec![Located::in_graph(codes::P804.at(
        "/packs",
        "the pack requirements do not settle on one version of each pack",
    ))])
}

/// The folders on the pack path that may hold the pack `name` but whose `pack.json` could not be
/// read for its name and version (too large, not a regular file, not JSON): each a P801 in that
/// file, so "no version on the pack path" is never the whole story when one is there, unread.
fn unreadable_for<'p>(name: &'p str, path: &'p PackPath) -> impl Iterator<Item = Located> + 'p {
    path.unreadable()
        .iter()
        .filter(move |u| u.name.as_deref().is_none_or(|n| n == name))
        .map(move |u| {
            let manifest = u.dir.join(super::MANIFEST);
            let exists = std::fs::symlink_metadata(&manifest).is_ok();
            let file = if exists { manifest } else { u.dir.clone() };
            let mut d = codes::P801.at(
                "",
                format!(
                    "this folder on the pack path may hold pack `{name}`, and it cannot be read \
                     for its name and version: {}",
                    u.reason
                ),
            );
            d.line = 1;
            d.column = 1;
            Located {
                file: Some(file.display().to_string()),
                diagnostic: d,
            }
        })
}

/// The ranges a selected pack's `requires` ask.
fn requests_of(pack: &Pack) -> impl Iterator<Item = Request> + '_ {
    let asker = Asker::Pack {
        label: pack.label(),
        file: pack.manifest.clone(),
        source: pack.source.clone(),
    };
    pack.requires.iter().map(move |r| Request {
        asker: asker.clone(),
        name: r.name.clone(),
        range: r.range.clone(),
    })
}

fn kernel_ok(range: &Range, abi: &str) -> bool {
    super::parse_version(abi).is_some_and(|v| range.req.matches(&v))
}

/// The P804 of a name no version satisfies, at the first range that cannot be met together
/// with those before it, naming every asker.
fn unsatisfied(name: &str, asking: &[&Request], path: &PackPath) -> Located {
    let versions: Vec<String> = path
        .versions(name)
        .iter()
        .map(|c| c.version.to_string())
        .collect();
    let mut culprit = asking[0];
    for k in 0..asking.len() {
        let any = path
            .versions(name)
            .iter()
            .any(|c| asking[..=k].iter().all(|r| r.range.req.matches(&c.version)));
        if !any {
            culprit = asking[k];
            break;
        }
    }
    let who: Vec<String> = asking
        .iter()
        .map(|r| format!("{} asks for {:?}", r.asker.describe(), r.range.text))
        .collect();
    let found = if versions.is_empty() {
        "no version of it is on the pack path".to_string()
    } else {
        format!("the pack path has {}", versions.join(", "))
    };
    let d = codes::P804.at(
        culprit.range.pointer.clone(),
        format!(
            "no version of pack `{name}` satisfies every range asking for it: {}; {found}",
            who.join("; ")
        ),
    );
    culprit.asker.locate(d)
}

/// Dependencies first (Kahn's algorithm; ties by name). Packs left over require each other in
/// a cycle: P805 at a `requires` entry on it.
fn topological(selected: &BTreeMap<String, Arc<Pack>>) -> Result<Vec<Arc<Pack>>, Vec<Located>> {
    let names: Vec<&String> = selected.keys().collect();
    // `names` is sorted (the map's keys): a lookup is a binary search, not a scan.
    let index = |n: &str| names.binary_search_by(|m| m.as_str().cmp(n)).ok();
    let mut indegree = vec![0usize; names.len()];
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); names.len()];
    for (i, n) in names.iter().enumerate() {
        for r in &selected[*n].requires {
            if let Some(j) = index(&r.name) {
                indegree[i] += 1;
                dependents[j].push(i);
            }
        }
    }
    let mut ready: std::collections::BTreeSet<usize> =
        (0..names.len()).filter(|&i| indegree[i] == 0).collect();
    let mut order = Vec::with_capacity(names.len());
    while let Some(i) = ready.pop_first() {
        order.push(selected[names[i]].clone());
        for &d in &dependents[i] {
            indegree[d] -= 1;
            if indegree[d] == 0 {
                ready.insert(d);
            }
        }
    }
    if order.len() == names.len() {
        return Ok(order);
    }
    // Walk from a leftover pack along leftover requirements until a pack repeats.
    let left: Vec<bool> = (0..names.len()).map(|i| indegree[i] > 0).collect();
    let start = left.iter().position(|&l| l).unwrap_or(0);
    let mut chain = vec![start];
    let mut at = start;
    loop {
        let pack = &selected[names[at]];
        let next = pack
            .requires
            .iter()
            .filter_map(|r| index(&r.name))
            .find(|&j| left[j]);
        let Some(j) = next else { break };
        if let Some(pos) = chain.iter().position(|&c| c == j) {
            chain.drain(..pos);
            break;
        }
        chain.push(j);
        at = j;
    }
    let first = selected[names[chain[0]]].clone();
    let second = names[*chain.get(1).unwrap_or(&chain[0])];
    let cycle: Vec<String> = chain
        .iter()
        .chain(std::iter::once(&chain[0]))
        .map(|&c| selected[names[c]].label())
        .collect();
    let pointer = first
        .requires
        .iter()
        .find(|r| &r.name == second)
        .map_or_else(|| "/requires".to_string(), |r| r.range.pointer.clone());
    Err(vec![Located::in_pack(
        &first,
        codes::P805.at(
            pointer,
            format!(
                "packs require each other in a cycle: {}",
                shown_cycle(&cycle)
            ),
        ),
    )])
}

/// `a@1.0.0 → b@1.0.0 → a@1.0.0`; a long cycle keeps its ends and says how many it leaves out
/// (a cycle through 1,000 packs is one line, not 1,000 names).
fn shown_cycle(cycle: &[String]) -> String {
    const ENDS: usize = 5;
    if cycle.len() <= 2 * ENDS + 2 {
        return cycle.join(" → ");
    }
    let left = cycle.len() - 2 * ENDS;
    format!(
        "{} → … {left} more … → {} ({} packs)",
        cycle[..ENDS].join(" → "),
        cycle[cycle.len() - ENDS..].join(" → "),
        cycle.len() - 1
    )
}
