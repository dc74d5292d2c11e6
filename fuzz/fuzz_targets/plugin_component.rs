//! Fuzz the plugin checks (SPEC §9.7, `pack lint`'s P870–P872): any bytes are a plugin binary,
//! read by `primgraph::plugin::check_plugin` against a fixed contract — never run. The check must
//! end without a panic, and every finding must be one of the three codes, a P871 naming the
//! import it is about.
//!
//! Run (seeds: a clean component of the world, a core module, a component importing an
//! interface its contract does not allow, one embedding another contract — written by the
//! tests' WAT builder; `corpus/plugin_component` is a minimized corpus of earlier runs,
//! committed with `git add -f` since `/fuzz/corpus` is ignored):
//! `cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run plugin_component corpus/plugin_component
//! seeds/plugin_component -- -max_total_time=600 -jobs=1`
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn contract() -> &'static serde_json::Value {
    static CONTRACT: OnceLock<serde_json::Value> = OnceLock::new();
    CONTRACT.get_or_init(|| {
        serde_json::json!({
            "id": "pfp.read",
            "alias": "PFP_READ",
            "class": "observation",
            "authority": "none",
            "effects": ["reads_workspace"],
            "input_schema": {"type": "object"},
            "output_schema": {"type": "object"}
        })
    })
}

fuzz_target!(|bytes: &[u8]| {
    for finding in primgraph::plugin::check_plugin(bytes, contract()) {
        let code = finding.code.code;
        assert!(
            matches!(code, "P870" | "P871" | "P872"),
            "a plugin finding coded {code}"
        );
        if code == "P871" {
            assert!(finding.import.is_some(), "a P871 names its import: {finding:?}");
        }
    }
});
