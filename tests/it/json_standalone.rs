//! `build.rs` includes `src/json` by `#[path]`: this test includes it the same way, proving the
//! module compiles on its own (std + serde_json, no `crate::` paths).

#[allow(dead_code)]
#[path = "../../src/json/mod.rs"]
mod json;

#[test]
fn the_module_compiles_and_parses_standalone() {
    let parsed = json::parse(br#"{"a": [1, {"b": null}]}"#, &json::Limits::default());
    let parsed = parsed.map_err(|e| e.to_string());
    assert_eq!(
        parsed.map(|p| p.locate("/a/1/b").map(|s| (s.start, s.end))),
        Ok(Some((16, 20)))
    );
}
