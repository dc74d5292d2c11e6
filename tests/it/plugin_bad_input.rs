//! Hostile and broken plugins (issue 25, "Bad input"): a 100 MB component, a 50 MB custom
//! section, nesting far past the limit, truncations at every sixteenth of the length, imports of
//! the world at `@2.0.0` and `@1.1.0`. Each is answered with findings — located in the plugin
//! (a byte offset) or, through `pack lint`, at the plugin's entry in `pack.json` — never a panic,
//! and what is held in memory is bounded by `MAX_PLUGIN_BYTES`: a larger file is refused from
//! its size, unread. The large files are written sparse (a few KB of real bytes and a length),
//! so the tests cost no disk; what they assert is the findings, never the time taken.

use crate::plugin_build;

use plugin_build::*;
use primgraph::plugin::{
    CONTRACT_SECTION, MAX_CONTRACT_BYTES, MAX_NESTING, MAX_PLUGIN_BYTES, check_plugin,
    check_plugin_file,
};
use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::process::Command;

const MB: u64 = 1_000_000;

/// The head of a custom section named `name` that, after `head_len` bytes, fills a binary up
/// to `total` bytes (its size field grows with its payload).
fn filling_section_head(head_len: u64, name: &str, total: u64) -> Vec<u8> {
    let mut payload = total - head_len - custom_section_head(name, 0).len() as u64;
    loop {
        let section = custom_section_head(name, payload);
        let whole = head_len + section.len() as u64 + payload;
        if whole == total {
            return section;
        }
        payload -= whole - total;
    }
}

/// Write `head`, then a custom section named `name` filling the file up to `total` bytes with
/// zeros (a hole: the file is sparse). The result is `head` plus one valid custom section.
fn write_padded(path: &Path, head: &[u8], name: &str, total: u64) {
    let mut file = std::fs::File::create(path).unwrap();
    file.write_all(head).unwrap();
    file.write_all(&filling_section_head(head.len() as u64, name, total))
        .unwrap();
    file.set_len(total).unwrap();
    assert_eq!(std::fs::metadata(path).unwrap().len(), total);
}

/// The same in memory: `head` + a custom section of zeros, `total` bytes long. The zeros come
/// from `vec!`, which the allocator hands out untouched, so the pages the parser skips cost
/// nothing.
fn padded(head: &[u8], name: &str, total: u64) -> Vec<u8> {
    let section = filling_section_head(head.len() as u64, name, total);
    let mut bytes = vec![0u8; total as usize];
    bytes[..head.len()].copy_from_slice(head);
    bytes[head.len()..head.len() + section.len()].copy_from_slice(&section);
    bytes
}

fn primgraph_lint(dir: &Path) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_primgraph"))
        .args(["pack", "lint"])
        .arg(dir)
        .args(["--format", "json"])
        .output()
        .expect("run primgraph");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "pack lint exits 1 on an error: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// The clean fixture pack in a temp dir, with `read.wasm` written by `write`.
fn pack_with(write: impl FnOnce(&Path)) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(clean_dir().join("pack.json"), dir.path().join("pack.json")).unwrap();
    write(&dir.path().join("read.wasm"));
    dir
}

/// The diagnostics of a §3.1 JSON document.
fn diagnostics(doc: &Value) -> Vec<Value> {
    doc["files"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|f| f["diagnostics"].as_array().cloned().unwrap_or_default())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Size

#[test]
fn a_100_mb_component_file_is_refused_from_its_size_unread() {
    let total = 100 * MB;
    assert!(total > MAX_PLUGIN_BYTES as u64);
    let dir = pack_with(|path| write_padded(path, &clean_plugin(), "padding", total));
    let plugin = dir.path().join("read.wasm");
    let findings = check_plugin_file(&plugin, &clean_contract());
    assert_eq!(codes(&findings), ["P870"], "{findings:?}");
    assert!(
        findings[0].message.contains(&format!(
            "the file is {total} bytes, over the limit of {MAX_PLUGIN_BYTES} bytes"
        )),
        "{}",
        findings[0].message
    );
    // Through `pack lint`: the pack loader reads every file of a pack under its own cap
    // (`primgraph::pack::MAX_FILE_BYTES`, below the plugin cap), so the plugin is refused
    // there, from its size: P801 located in the plugin file.
    let doc = primgraph_lint(dir.path());
    let found = diagnostics(&doc);
    assert_eq!(found.len(), 1, "{doc}");
    assert_eq!(found[0]["code"], "P801");
    assert!(
        doc["files"][0]["file"]
            .as_str()
            .unwrap()
            .ends_with("read.wasm"),
        "{doc}"
    );
    assert_eq!(
        (&found[0]["line"], &found[0]["column"]),
        (&1.into(), &1.into())
    );
    let limit = primgraph::pack::MAX_FILE_BYTES;
    assert!(limit < MAX_PLUGIN_BYTES);
    assert!(
        found[0]["message"].as_str().unwrap().contains(&format!(
            "the file is {total} bytes, over the limit of {limit} bytes"
        )),
        "{}",
        found[0]
    );
}

#[test]
fn a_100_mb_component_in_memory_is_read_in_place_and_is_of_the_world() {
    // The same bytes handed over in memory (a host that has them already): a valid component of
    // the world whose extra custom section is skipped, not copied — no finding.
    let bytes = padded(&clean_plugin(), "padding", 100 * MB);
    assert_eq!(bytes.len() as u64, 100 * MB);
    assert_eq!(check_plugin(&bytes, &clean_contract()), Vec::new());
    // Its contract, pushed 100 MB down: still found, still compared.
    let mut narrower = clean_contract();
    narrower["effects"] = serde_json::json!([]);
    assert_eq!(codes(&check_plugin(&bytes, &narrower)), ["P871", "P872"]);
}

#[test]
fn a_50_mb_custom_section_is_read_within_the_cap_and_skipped() {
    let total = 50 * MB;
    assert!(total < MAX_PLUGIN_BYTES as u64);
    let dir = tempfile::tempdir().unwrap();
    let plugin = dir.path().join("read.wasm");
    write_padded(&plugin, &clean_plugin(), "padding", total);
    assert_eq!(check_plugin_file(&plugin, &clean_contract()), Vec::new());
}

#[test]
fn a_50_mb_contract_section_is_p872_at_its_offset_unparsed() {
    let total = 50 * MB;
    let head = world_component(&read_import("1.0.0")); // no contract of its own
    let dir = tempfile::tempdir().unwrap();
    let plugin = dir.path().join("read.wasm");
    write_padded(&plugin, &head, CONTRACT_SECTION, total);
    let findings = check_plugin_file(&plugin, &clean_contract());
    assert_eq!(codes(&findings), ["P872"], "{findings:?}");
    // The payload starts after the head, the section's id, size and name.
    let section_data = head.len() as u64
        + filling_section_head(head.len() as u64, CONTRACT_SECTION, total).len() as u64;
    assert_eq!(findings[0].offset, Some(section_data), "{findings:?}");
    assert!(
        findings[0]
            .message
            .contains(&format!("over the limit of {MAX_CONTRACT_BYTES}")),
        "{}",
        findings[0].message
    );
}

// ---------------------------------------------------------------------------------------------
// Nesting

const COMPONENT_HEADER: [u8; 8] = [0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00];
const COMPONENT_SECTION: u8 = 4;

/// `levels` components, each the only section of the one around it, written in one pass (the
/// sizes first, innermost out).
fn nested(levels: usize) -> Vec<u8> {
    let mut sizes = vec![COMPONENT_HEADER.len() as u64];
    for _ in 0..levels {
        let inner = *sizes.last().unwrap();
        sizes.push(COMPONENT_HEADER.len() as u64 + 1 + leb128(inner).len() as u64 + inner);
    }
    let mut bytes = Vec::with_capacity(*sizes.last().unwrap() as usize);
    for inner in sizes[..levels].iter().rev() {
        bytes.extend_from_slice(&COMPONENT_HEADER);
        bytes.push(COMPONENT_SECTION);
        bytes.extend(leb128(*inner));
    }
    bytes.extend_from_slice(&COMPONENT_HEADER);
    assert_eq!(bytes.len() as u64, *sizes.last().unwrap());
    bytes
}

/// The offset where the component at nesting depth `depth` (1 = the first nested) begins.
fn start_of_level(bytes: &[u8], depth: usize) -> u64 {
    let mut at = 0usize;
    for _ in 0..depth {
        at += COMPONENT_HEADER.len() + 1; // header, section id
        while bytes[at] & 0x80 != 0 {
            at += 1;
        }
        at += 1; // the size's last byte
    }
    at as u64
}

#[test]
fn nesting_past_the_limit_is_p870_at_the_first_level_too_deep() {
    for levels in [MAX_NESTING + 1, 1_000, 10_000] {
        let bytes = nested(levels);
        let findings = check_plugin(&bytes, &clean_contract());
        assert_eq!(codes(&findings), ["P870"], "{levels} levels: {findings:?}");
        assert!(
            findings[0]
                .message
                .contains(&format!("nested deeper than {MAX_NESTING} levels")),
            "{}",
            findings[0].message
        );
        assert_eq!(
            findings[0].offset,
            Some(start_of_level(&bytes, MAX_NESTING + 1)),
            "{levels} levels"
        );
    }
}

#[test]
fn nesting_up_to_the_limit_is_read_through() {
    // Valid nesting, but an empty component exports no `invoke` and carries no contract:
    // those, not the nesting, are the findings.
    let findings = check_plugin(&nested(MAX_NESTING), &clean_contract());
    assert_eq!(codes(&findings), ["P870", "P872"], "{findings:?}");
    assert!(
        findings[0].message.contains("exports no function `invoke`"),
        "{}",
        findings[0].message
    );
}

// ---------------------------------------------------------------------------------------------
// Truncation

/// Cut at each sixteenth: a P870 located at or before the cut (0 for the first cut).
fn assert_truncations_located(bytes: &[u8]) {
    let contract = clean_contract();
    for k in 0..16 {
        let cut = bytes.len() * k / 16;
        let findings = check_plugin(&bytes[..cut], &contract);
        assert_eq!(codes(&findings), ["P870"], "cut at {cut}/{}", bytes.len());
        let offset = findings[0]
            .offset
            .unwrap_or_else(|| panic!("cut at {cut}: no offset: {findings:?}"));
        assert!(offset <= cut as u64, "cut at {cut}: offset {offset}");
        if cut < 8 {
            assert_eq!(offset, 0);
            assert!(findings[0].message.contains("not a WebAssembly binary"));
        }
    }
    assert_eq!(check_plugin(bytes, &contract), Vec::new(), "uncut");
}

#[test]
fn truncations_at_every_sixteenth_are_p870_located() {
    assert_truncations_located(&clean_plugin());
}

/// Every proper prefix of the clean plugin is refused. A cut inside a section is P870; a cut
/// between two top-level sections leaves a well-formed component (a component has no end
/// marker), which then lacks what the rest held: its `invoke` (P870) or, cut among the custom
/// sections at the end, its contract (P872) — as the cut just before the contract section does.
#[test]
fn every_truncation_of_the_clean_plugin_is_a_finding() {
    let bytes = clean_plugin();
    let contract = clean_contract();
    let contract_section = bytes.len() - custom_section_len(&contract);
    let mut without_contract = Vec::new();
    for cut in 0..bytes.len() {
        let findings = check_plugin(&bytes[..cut], &contract);
        match codes(&findings).as_slice() {
            ["P870", ..] => {}
            ["P872"] => {
                assert!(
                    findings[0]
                        .message
                        .contains("carries no `primgraph:contract`"),
                    "cut at {cut}: {findings:?}"
                );
                without_contract.push(cut);
            }
            other => panic!("cut at {cut}: {other:?} {findings:?}"),
        }
    }
    assert!(
        without_contract.contains(&contract_section),
        "{without_contract:?}"
    );
}

/// The length of the contract section `with_contract` appends for `contract`.
fn custom_section_len(contract: &Value) -> usize {
    let payload = serde_json::to_vec(contract).unwrap();
    custom_section_head(CONTRACT_SECTION, payload.len() as u64).len() + payload.len()
}

#[test]
fn truncations_of_a_100_mb_component_are_p870_located() {
    assert_truncations_located(&padded(&clean_plugin(), "padding", 100 * MB));
}

#[test]
fn truncated_files_through_pack_lint_are_located_at_the_plugin_entry() {
    let bytes = clean_plugin();
    let cut = bytes.len() / 2;
    let dir = pack_with(|path| std::fs::write(path, &bytes[..cut]).unwrap());
    let doc = primgraph_lint(dir.path());
    let found = diagnostics(&doc);
    assert_eq!(found.len(), 1, "{doc}");
    assert_eq!(found[0]["code"], "P870");
    assert_eq!(found[0]["pointer"], "/plugins/pfp.read");
    let message = found[0]["message"].as_str().unwrap();
    assert!(message.contains("not a valid component"), "{message}");
    assert_eq!(
        message.matches("at byte").count(),
        1,
        "the offset is stated once: {message}"
    );
}

// ---------------------------------------------------------------------------------------------
// Versions

/// A component importing `read-file` from the world's package at `version`, built against the
/// world's WIT at that version, embedding `contract`.
fn versioned(version: &str, extra_wit: &str, imports: &str, contract: &Value) -> Vec<u8> {
    let wit = world_at(version, extra_wit);
    let bytes = component_of(
        &core_module(imports),
        &[("primitive.wit", wit.as_str())],
        "primitive",
    );
    with_contract(bytes, contract)
}

#[test]
fn an_import_at_2_0_0_is_p870_naming_the_version() {
    let contract = clean_contract();
    let bytes = versioned("2.0.0", "", &read_import("2.0.0"), &contract);
    let findings = check_plugin(&bytes, &contract);
    assert_eq!(codes(&findings), ["P870"], "{findings:?}");
    let name = "primgraph:primitive/workspace-read@2.0.0";
    assert_eq!(findings[0].import.as_deref(), Some(name));
    assert!(findings[0].offset.is_some());
    assert!(
        findings[0].message.contains(name) && findings[0].message.contains("major version 2"),
        "{}",
        findings[0].message
    );
}

#[test]
fn an_undeclared_import_at_2_0_0_is_p870_and_p871() {
    let contract = clean_contract();
    let imports = r#"(import "primgraph:primitive/network@2.0.0" "fetch" (func (param i32 i32 i32 i32 i32 i32 i32 i32 i32 i32)))"#;
    let bytes = versioned("2.0.0", "", imports, &contract);
    let findings = check_plugin(&bytes, &contract);
    assert_eq!(codes(&findings), ["P870", "P871"], "{findings:?}");
    assert!(findings[1].message.contains("`network`"));
}

#[test]
fn an_import_at_1_1_0_is_allowed() {
    let contract = clean_contract();
    let bytes = versioned("1.1.0", "", &read_import("1.1.0"), &contract);
    let read = primgraph::plugin::component::read(&bytes);
    assert!(
        read.imports
            .iter()
            .any(|i| i.name == "primgraph:primitive/workspace-read@1.1.0"),
        "{:?}",
        read.imports
    );
    assert_eq!(check_plugin(&bytes, &contract), Vec::new());
}

#[test]
fn an_interface_added_in_1_1_0_is_p871_until_an_effect_allows_it() {
    let contract = clean_contract();
    let clock = "/// A 1.x addition.\ninterface clock {\n    now-ms: func() -> u64;\n}\n";
    let wit_world_import = "world primitive {\n    import clock;";
    let wit = world_at("1.1.0", clock).replace("world primitive {", wit_world_import);
    let imports = r#"(import "primgraph:primitive/clock@1.1.0" "now-ms" (func (result i64)))"#;
    let bytes = with_contract(
        component_of(
            &core_module(imports),
            &[("primitive.wit", wit.as_str())],
            "primitive",
        ),
        &contract,
    );
    let findings = check_plugin(&bytes, &contract);
    assert_eq!(codes(&findings), ["P871"], "{findings:?}");
    assert_eq!(
        findings[0].import.as_deref(),
        Some("primgraph:primitive/clock@1.1.0")
    );
    assert!(findings[0].message.contains("no effect allows"));
}

// ---------------------------------------------------------------------------------------------
// The fuzz target's inputs, replayed

/// The seeds and the committed, minimized corpus of the `plugin_component` fuzz target
/// (`fuzz/`), run through the check as the target runs them: findings of the three codes only,
/// a P871 naming its import, never a panic. A crash the fuzzer finds lands here as a file.
#[test]
fn the_fuzz_seeds_and_corpus_are_findings_not_panics() {
    let contract = serde_json::json!({
        "id": "pfp.read",
        "alias": "PFP_READ",
        "class": "observation",
        "authority": "none",
        "effects": ["reads_workspace"],
        "input_schema": {"type": "object"},
        "output_schema": {"type": "object"}
    });
    let mut inputs = 0;
    for dir in [
        "fuzz/seeds/plugin_component",
        "fuzz/corpus/plugin_component",
    ] {
        let Ok(entries) = std::fs::read_dir(root().join(dir)) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let bytes = std::fs::read(&path).unwrap();
            for finding in check_plugin(&bytes, &contract) {
                assert!(
                    matches!(finding.code.code, "P870" | "P871" | "P872"),
                    "{}: {finding:?}",
                    path.display()
                );
                if finding.code.code == "P871" {
                    assert!(finding.import.is_some(), "{}: {finding:?}", path.display());
                }
            }
            inputs += 1;
        }
    }
    assert!(inputs >= 4, "the seeds are there ({inputs} inputs)");
}
