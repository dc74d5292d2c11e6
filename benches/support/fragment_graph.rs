//! The fragment-heavy bench graph shared by `benches/fragments.rs` and `benches/lsp.rs`
//! (SPEC §9.3): a pack `benchkit` with one ten-node fragment, and a graph of N uses of it in a
//! row, which validates clean.

#![allow(dead_code)]

use serde_json::json;

/// A pack `benchkit` with one ten-node fragment `land`: authorize, apply (its failure checked),
/// then six test runs in a row.
pub fn pack(dir: &std::path::Path) {
    let root = dir.join("benchkit");
    std::fs::create_dir_all(&root).unwrap();
    let manifest = json!({"pack": "benchkit", "version": "1.0.0", "kernel_abi": "^1.0",
        "roots": ["benchkit"], "fragments": ["*.fragment.json"]});
    std::fs::write(root.join("pack.json"), manifest.to_string()).unwrap();
    let mut nodes = vec![
        json!({"id": "gate", "primitive": "ctl.authorize_patch", "inputs": {"patch": {"from": "$in", "at": "/patch"}},
               "branches": {"allow": "apply", "deny": {"exit": "failed"}}, "on_error": {"*": {"exit": "failed"}}}),
        json!({"id": "apply", "primitive": "mut.apply_patch",
               "inputs": {"patch": {"from": "$in", "at": "/patch"}, "grant": {"from": "gate", "at": "/grant"}},
               "next": "clean", "on_error": {"*": "clean"}}),
        json!({"id": "clean", "primitive": "ver.check_workspace_clean",
               "branches": {"pass": "t0", "fail": {"exit": "failed"}}, "on_error": {"*": {"exit": "failed"}}}),
    ];
    for k in 0..7 {
        let pass = if k == 6 {
            json!({"exit": "landed"})
        } else {
            json!(format!("t{}", k + 1))
        };
        nodes.push(json!({"id": format!("t{k}"), "primitive": "ver.run_target_tests",
            "max_visits": {"param": "attempts"}, "inputs": {"test_ids": {"from": "$in", "at": "/tests"}},
            "branches": {"pass": pass, "fail": {"exit": "failed"}}, "on_error": {"*": {"exit": "failed"}}}));
    }
    let fragment = json!({
        "fragment": "land", "summary": "Authorize, apply, and run the tests seven times.",
        "params": {"type": "object", "properties": {"attempts": {"type": "integer", "minimum": 1, "default": 1}}},
        "inputs": {"patch": {"type": "string", "minLength": 1},
                   "tests": {"type": "array", "items": {"type": "string", "minLength": 1}}},
        "outputs": {"result": {"from": "t6", "at": ""}},
        "exits": ["landed", "failed"], "entry": "gate", "nodes": nodes
    });
    std::fs::write(root.join("land.fragment.json"), fragment.to_string()).unwrap();
}

pub fn graph(uses: usize) -> Vec<u8> {
    let mut nodes = vec![
        json!({"id": "intake", "primitive": "intake.parse_issue", "inputs": {"text": {"from": "$input", "at": "/issue"}}, "next": "draft", "on_error": {"*": "give_up"}}),
        json!({"id": "draft", "primitive": "synth.patch", "inputs": {"paths": {"from": "intake", "at": "/paths"}, "test_ids": {"from": "intake", "at": "/test_ids"}}, "next": "u0", "on_error": {"*": "give_up"}}),
    ];
    for k in 0..uses {
        let next = if k + 1 == uses {
            "done".to_string()
        } else {
            format!("u{}", k + 1)
        };
        nodes.push(json!({"id": format!("u{k}"), "fragment": "benchkit/land", "with": {"attempts": 2},
            "inputs": {"patch": {"from": "draft", "at": "/patch"}, "tests": {"from": "intake", "at": "/test_ids"}},
            "exits": {"landed": next, "failed": "give_up"}}));
    }
    nodes.push(json!({"id": "done", "primitive": "done.finish_success"}));
    nodes.push(json!({"id": "give_up", "primitive": "done.report_failure", "inputs": {"reason": {"const": "tests_still_failing"}}}));
    serde_json::to_vec_pretty(&json!({
        "graph": "bench-uses", "abi": "1.0.0", "packs": {"benchkit": "^1.0"},
        "capabilities": ["intake.*", "synth.*", "ctl.*", "mut.*", "ver.*", "done.*"],
        "input": {"type": "object", "properties": {"issue": {"type": "string"}}, "required": ["issue"]},
        "budget": {"max_steps": 100000},
        "entry": "intake", "nodes": nodes
    }))
    .unwrap()
}
