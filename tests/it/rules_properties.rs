//! Property tests of the shared model and the path-based rules on random graphs over the test
//! registry: the S209 bound is never below the length of a run that honours `max_visits`;
//! dominance agrees with its definition; A402 and A407 witnesses are real paths that show the
//! violation, and both fire at exactly the nodes a plain search finds (completeness); validation never panics and is deterministic on arbitrary input.

use primgraph::diagnostic::Witness;
use primgraph::graph::{Binding, GraphDoc, NodeDoc, SmallMap};
use primgraph::registry::{Authority, Class, Registry};
use primgraph::rules::{Context, a402_grant_bypass, a407_verifier_bypass, s209_step_budget};
use primgraph::validate::{Options, check_source};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::sync::OnceLock;

fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/rules/registry.json"
        );
        Registry::from_path(std::path::Path::new(path)).unwrap_or_else(|e| panic!("{e}"))
    })
}

const PRIMS: &[&str] = &[
    "intake.parse_issue",
    "synth.patch",
    "ctl.authorize_patch",
    "mut.apply_patch",
    "ver.run_target_tests",
    "stop.finish_or_retry",
    "done.finish_success",
];

/// A random node: primitive choice, successor choices, bound, error handler.
type NodeSpec = (usize, Vec<usize>, Option<u32>, Option<usize>);

fn graph_strategy() -> impl Strategy<Value = GraphDoc> {
    (1usize..9).prop_flat_map(|n| {
        proptest::collection::vec(
            (
                0..PRIMS.len(),
                proptest::collection::vec(0..n, 3),
                proptest::option::weighted(0.4, 1u32..4),
                proptest::option::weighted(0.3, 0..n),
            ),
            n,
        )
        .prop_map(build_doc)
    })
}

fn build_doc(specs: Vec<NodeSpec>) -> GraphDoc {
    let registry = registry();
    let nodes = specs
        .iter()
        .enumerate()
        .map(|(i, (p, targets, max_visits, on_error))| {
            let primitive = PRIMS[*p].to_string();
            let prim = registry.lookup(&primitive).expect("fixture primitive");
            let target = |k: usize| format!("n{}", targets[k % targets.len()]);
            let (next, branches) = match (&prim.outcomes, prim.terminal) {
                (_, true) => (None, None),
                (Some(outcomes), false) => (
                    None,
                    Some(
                        outcomes
                            .iter()
                            .enumerate()
                            .map(|(k, o)| (o.clone(), target(k)))
                            .collect::<BTreeMap<_, _>>(),
                    ),
                ),
                (None, false) => (Some(target(0)), None),
            };
            let on_error = on_error.and_then(|t| {
                prim.failure_modes
                    .first()
                    .map(|m| BTreeMap::from([(m.clone(), format!("n{t}"))]))
            });
            NodeDoc {
                id: format!("n{i}"),
                primitive,
                workspace: None,
                inputs: SmallMap::new(),
                next,
                branches: branches.map(|b| b.into_iter().collect()),
                on_error: on_error.map(|e| e.into_iter().collect()),
                max_visits: *max_visits,
            }
        })
        .collect();
    GraphDoc {
        schema: None,
        graph: "random".into(),
        abi: "1.0.0".into(),
        description: None,
        capabilities: vec!["*".into()],
        budget: None,
        input: None,
        packs: Default::default(),
        entry: "n0".into(),
        nodes,
    }
}

/// Successor lists with "is grant" flags, straight from the document.
fn successors(cx: &Context<'_>) -> Vec<Vec<(usize, bool, bool)>> {
    let mut out = vec![Vec::new(); cx.doc.nodes.len()];
    for (i, node) in cx.doc.nodes.iter().enumerate() {
        let prim = cx.model.prim(i);
        let authorizer = prim.is_some_and(|p| p.authority == Authority::Authorize);
        if let Some(t) = &node.next {
            out[i].push((cx.model.ids[t.as_str()], false, false));
        }
        for (o, t) in node.branches.iter().flatten() {
            let grant = authorizer && prim.is_some_and(|p| p.grants.contains(o));
            out[i].push((cx.model.ids[t.as_str()], grant, false));
        }
        for t in node.on_error.iter().flatten().map(|(_, t)| t) {
            out[i].push((cx.model.ids[t.as_str()], false, true));
        }
    }
    out
}

fn reaches_without(succ: &[Vec<(usize, bool, bool)>], from: usize, removed: usize) -> Vec<bool> {
    let mut seen = vec![false; succ.len()];
    if from == removed {
        return seen;
    }
    let mut queue = VecDeque::from([from]);
    seen[from] = true;
    while let Some(v) = queue.pop_front() {
        for &(t, _, _) in &succ[v] {
            if t != removed && !seen[t] {
                seen[t] = true;
                queue.push_back(t);
            }
        }
    }
    seen
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn step_bound_covers_every_bounded_run(doc in graph_strategy(), choices in proptest::collection::vec(0usize..16, 200)) {
        let cx = Context::new(&doc, registry());
        let Some(bound) = s209_step_budget::worst_case_steps(&cx) else { return Ok(()) };
        let succ = successors(&cx);
        let mut visits: HashMap<usize, u32> = HashMap::new();
        let mut current = 0usize;
        let mut steps = 0u128;
        for choice in choices {
            let count = visits.entry(current).or_insert(0);
            *count += 1;
            if doc.nodes[current].max_visits.is_some_and(|m| *count > m) {
                break; // the runtime stops a run that exceeds a bound
            }
            steps += 1;
            let options = &succ[current];
            if options.is_empty() { break; }
            current = options[choice % options.len()].0;
        }
        prop_assert!(steps <= bound, "run of {steps} steps exceeds bound {bound}");
    }

    #[test]
    fn dominance_matches_its_definition(doc in graph_strategy()) {
        let cx = Context::new(&doc, registry());
        let succ = successors(&cx);
        let n = doc.nodes.len();
        for x in 0..n {
            let without = reaches_without(&succ, 0, x);
            for (y, &reached_without_x) in without.iter().enumerate() {
                if !cx.model.reachable[y] || !cx.model.reachable[x] { continue; }
                let expected = x == y || !reached_without_x;
                prop_assert_eq!(cx.model.dominates(x, y), expected, "x={} y={}", x, y);
            }
        }
    }

    #[test]
    fn grant_witnesses_are_grant_free_paths_from_entry(doc in graph_strategy()) {
        let cx = Context::new(&doc, registry());
        let succ = successors(&cx);
        let mut out = Vec::new();
        a402_grant_bypass::check(&cx, &mut out);
        for d in &out {
            let Some(Witness::Route { path, edges }) = &d.witness else { panic!("A402 without route witness") };
            prop_assert_eq!(edges.len() + 1, path.len());
            // The edge taken is named, and no edge taken is a grant edge.
            for (edge, pair) in edges.iter().zip(path.windows(2)) {
                prop_assert_eq!((&edge.from, &edge.to), (&pair[0], &pair[1]));
                let a = cx.model.ids[edge.from.as_str()];
                let node = &doc.nodes[a];
                let exists = match (edge.kind, edge.label.as_deref()) {
                    ("next", None) => node.next.as_deref() == Some(edge.to.as_str()),
                    ("branch", Some(o)) => node.branches.as_ref().and_then(|b| b.get(o)) == Some(&edge.to),
                    ("on_error", Some(m)) => node.on_error.as_ref().and_then(|b| b.get(m)) == Some(&edge.to),
                    _ => false,
                };
                prop_assert!(exists, "{:?}", edge);
                let granting = edge.kind == "branch"
                    && cx.model.prim(a).is_some_and(|p| p.authority == Authority::Authorize
                        && edge.label.as_deref().is_some_and(|o| o != "*" && p.grants.iter().any(|g| g == o)));
                prop_assert!(!granting, "{:?}", edge);
            }
            prop_assert_eq!(path.first().map(String::as_str), Some("n0"));
            let last = cx.model.ids[path.last().map(String::as_str).unwrap_or_default()];
            prop_assert!(cx.model.prim(last).is_some_and(|p| p.requires_authorization));
            for pair in path.windows(2) {
                let (a, b) = (cx.model.ids[pair[0].as_str()], cx.model.ids[pair[1].as_str()]);
                prop_assert!(succ[a].iter().any(|&(t, grant, _)| t == b && !grant), "{:?}", path);
            }
        }
    }

    /// Completeness of A402: it fires at exactly the authorization-requiring nodes a plain
    /// search reaches from `entry` over non-grant edges.
    #[test]
    fn grant_bypass_fires_exactly_where_a_grant_free_path_exists(doc in graph_strategy()) {
        let cx = Context::new(&doc, registry());
        let succ = successors(&cx);
        let mut out = Vec::new();
        a402_grant_bypass::check(&cx, &mut out);
        let fired: BTreeSet<String> = out.iter().map(|d| d.pointer.clone()).collect();
        let mut seen = vec![false; doc.nodes.len()];
        let mut queue = VecDeque::from([0usize]);
        seen[0] = true;
        while let Some(w) = queue.pop_front() {
            for &(t, grant, _) in &succ[w] {
                if !grant && !seen[t] { seen[t] = true; queue.push_back(t); }
            }
        }
        let expected: BTreeSet<String> = (0..doc.nodes.len())
            .filter(|&v| seen[v] && cx.model.prim(v).is_some_and(|p| p.requires_authorization))
            .map(|v| format!("/nodes/{v}"))
            .collect();
        prop_assert_eq!(fired, expected);
    }

    #[test]
    fn verifier_witnesses_skip_every_verifier(doc in graph_strategy()) {
        let cx = Context::new(&doc, registry());
        let succ = successors(&cx);
        let mut out = Vec::new();
        a407_verifier_bypass::check(&cx, &mut out);
        for d in &out {
            let Some(Witness::Route { path, edges }) = &d.witness else { panic!("A407 without route witness") };
            prop_assert_eq!(edges.len() + 1, path.len());
            let ids: Vec<usize> = path.iter().map(|p| cx.model.ids[p.as_str()]).collect();
            prop_assert!(cx.model.prim(ids[0]).is_some_and(|p| p.requires_verifier));
            prop_assert!(cx.model.terminal[*ids.last().unwrap_or(&0)]);
            for &v in &ids {
                prop_assert!(cx.model.class(v) != Some(Class::Verification));
            }
            // Any edge kind, the node's own `on_error` edges included (SPEC §3.4).
            for pair in ids.windows(2) {
                prop_assert!(succ[pair[0]].iter().any(|&(t, _, _)| t == pair[1]));
            }
        }
    }

    /// A407 fires at a `requires_verifier` node exactly when a plain search finds a path from it
    /// (any edge kind) to a terminal through non-verification nodes only.
    #[test]
    fn verifier_bypass_fires_exactly_where_an_unverified_path_exists(doc in graph_strategy()) {
        let cx = Context::new(&doc, registry());
        let succ = successors(&cx);
        let mut out = Vec::new();
        a407_verifier_bypass::check(&cx, &mut out);
        let fired: Vec<String> = out.iter().map(|d| d.pointer.clone()).collect();
        for v in 0..doc.nodes.len() {
            if !cx.model.prim(v).is_some_and(|p| p.requires_verifier) { continue; }
            let unverified = |w: usize| cx.model.class(w) != Some(Class::Verification);
            let mut seen = vec![false; doc.nodes.len()];
            let mut queue = VecDeque::new();
            if unverified(v) { seen[v] = true; queue.push_back(v); }
            let mut bypass = false;
            while let Some(w) = queue.pop_front() {
                if cx.model.terminal[w] { bypass = true; break; }
                for &(t, _, _) in &succ[w] {
                    if !seen[t] && unverified(t) { seen[t] = true; queue.push_back(t); }
                }
            }
            prop_assert_eq!(fired.contains(&format!("/nodes/{v}")), bypass, "node {}", v);
        }
    }

    #[test]
    fn validation_never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let report = check_source("x.graph.json", &bytes, registry(), &Options::default());
        let again = check_source("x.graph.json", &bytes, registry(), &Options::default());
        prop_assert_eq!(report, again);
    }

    #[test]
    fn validation_of_random_graph_documents_is_sorted_and_stable(doc in graph_strategy()) {
        let mut value = serde_json::to_value(DocJson(&doc)).unwrap_or_default();
        value["capabilities"] = serde_json::json!(["intake.*", "synth.*", "ctl.*", "mut.*", "ver.*", "stop.*", "done.*"]);
        let text = serde_json::to_string_pretty(&value).unwrap_or_default();
        let report = check_source("r.graph.json", text.as_bytes(), registry(), &Options::default());
        let keys: Vec<_> = report.diagnostics.iter().map(|d| (d.line, d.column, d.code.as_str(), d.pointer.clone(), d.message.clone())).collect();
        let mut sorted = keys.clone();
        sorted.sort();
        prop_assert_eq!(keys, sorted);
        prop_assert!(!report.diagnostics.iter().any(|d| d.code.starts_with('G')), "{:?}", report.diagnostics);
    }
}

/// Serializes a `GraphDoc` back to the document form.
struct DocJson<'a>(&'a GraphDoc);

impl serde::Serialize for DocJson<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let doc = self.0;
        let nodes: Vec<serde_json::Value> = doc
            .nodes
            .iter()
            .map(|n| {
                let mut v = serde_json::json!({"id": n.id, "primitive": n.primitive});
                if let Some(t) = &n.next {
                    v["next"] = t.clone().into();
                }
                if let Some(b) = &n.branches {
                    v["branches"] = serde_json::to_value(b).unwrap_or_default();
                }
                if let Some(e) = &n.on_error {
                    v["on_error"] = serde_json::to_value(e).unwrap_or_default();
                }
                if let Some(m) = n.max_visits {
                    v["max_visits"] = m.into();
                }
                let inputs: serde_json::Map<String, serde_json::Value> = n
                    .inputs
                    .iter()
                    .map(|(k, b)| {
                        (
                            k.clone(),
                            match b {
                                Binding::From { from, at } => {
                                    serde_json::json!({"from": from.as_str(), "at": at})
                                }
                                Binding::Const { value } => serde_json::json!({"const": value}),
                            },
                        )
                    })
                    .collect();
                if !inputs.is_empty() {
                    v["inputs"] = inputs.into();
                }
                v
            })
            .collect();
        serde_json::json!({"graph": doc.graph, "abi": doc.abi, "capabilities": doc.capabilities,
            "entry": doc.entry, "nodes": nodes})
        .serialize(s)
    }
}
