//! The integration tests, one binary: each former `tests/NAME.rs` is the module `NAME` here
//! (run one file's tests with `cargo test --test it NAME::`), and the helpers they share
//! (`common`, `lsp_client`, `external_tool`, `import_support`, `plugin_build`) are compiled once.
//! One binary links the library once instead of seventy times (issue 22, item 6). Three tests
//! stay binaries of their own: `validate_memory` and `registry_alloc` install a counting global
//! allocator that must see no other test's allocations, and `report_browser` has its own
//! harness (`harness = false`).

mod common;
mod external_tool;
mod import_support;
mod lsp_client;
mod plugin_build;

mod ci_outputs;
mod cli_help;
mod cli_robust;
mod code_table;
mod compare_cli;
mod compare_failure_rate;
mod compare_props;
mod diagnostic_proptest;
mod diagnostic_render;
mod diagnostic_snapshots;
mod editor_neovim;
mod fragments;
mod fragments_adversarial;
mod fragments_downstream;
mod fragments_props;
mod graph_diff_findings;
mod graphs_render;
mod graphs_schema;
mod import_bad_input;
mod import_cli;
mod import_scale;
mod json_parse;
mod json_proptest;
mod json_standalone;
mod lsp_fragments;
mod lsp_framing;
mod lsp_session;
mod named_inputs;
mod pack_bad_input;
mod pack_cli;
mod pack_rules_props;
mod pack_spec_findings;
mod pack_wire;
mod packs_loader;
mod plugin_bad_input;
mod plugin_docs;
mod plugin_wit;
mod precommit_hook;
mod props_validate;
mod readme_examples;
mod registry_builtin;
mod registry_diff_cli;
mod registry_diff_fixtures;
mod registry_diff_props;
mod registry_lint;
mod registry_lookup;
mod registry_schema;
mod replay_adversarial;
mod replay_corpus;
mod replay_engine;
mod replay_pair;
mod replay_seal;
mod replay_spec_findings;
mod report_html;
mod report_svg;
mod rule_spec_findings;
mod rules_builtin;
mod rules_fixtures;
mod rules_properties;
mod sarif_schema;
mod schema_bounds;
mod schema_cli;
mod schema_fixtures;
mod schema_ibm;
mod schema_properties;
mod schema_refs_annotations;
mod schema_refs_in_graphs;
mod simulate_props;
mod spec_conformance;
mod summary_integrity;
mod tidy;
mod trace_schema;
mod trace_writer_refusals;
mod validate_driver;
mod validate_loading;
