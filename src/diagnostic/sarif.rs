//! SARIF 2.1.0 rendering, as GitHub code scanning ingests it: one run whose `tool.driver`
//! describes every rule (from the caller's rows of the code table), and one result per diagnostic
//! with its rule, level, message, physical location (relative URI, 1-based region, columns
//! in Unicode code points), related locations, a stable fingerprint, and the witness, pointer
//! and help in `properties`. A witness path is also a `codeFlows` entry (one thread flow with a
//! location per node, which GitHub shows as a flow); a configuration override is in
//! `properties.overriddenBy`, and a diagnostic it turned off is a result with an `external`
//! suppression (GitHub lists it as dismissed, not as an alert). A pack rule's code (`PACK/RULE`)
//! is described by its definition when the caller passes its [`RuleEntry`]. Every region is the
//! extent `diagnostic::resolve` carried (`endLine`/`endColumn` exclusive); the source is never
//! parsed here.

use super::{Code, Diagnostic, Extent, FileReport, Severity};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

pub const SARIF_SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The SARIF level of a severity.
pub fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A rule the code table does not hold — a pack rule, `PACK/RULE` (SPEC §9.4) — as the caller
/// that loaded its pack describes it for `tool.driver.rules` (see
/// `pack_rules::PackRule::rule_entry`).
#[derive(Debug, Clone, PartialEq)]
pub struct RuleEntry {
    /// The code, `PACK/RULE`.
    pub id: String,
    /// UpperCamelCase, from the rule's id.
    pub name: String,
    pub short_description: String,
    pub full_description: String,
    /// Plain text: the rule's help and where to read its definition (`primgraph explain`).
    pub help_text: String,
    /// The same with the definition, as `explain` prints it.
    pub help_markdown: String,
    /// The severity in force: the rule's, or the configuration's global setting for its code.
    pub level: Severity,
    /// False when the configuration turns the rule off.
    pub enabled: bool,
    /// Extra facts (`pack`, `kind`, `definition`) for `properties`.
    pub properties: Map<String, Value>,
}

impl RuleEntry {
    fn to_value(&self) -> Value {
        let mut configuration = Map::new();
        configuration.insert("level".into(), Value::from(level(self.level)));
        if !self.enabled {
            configuration.insert("enabled".into(), Value::Bool(false));
        }
        let mut rule = json!({
            "id": self.id,
            "name": self.name,
            "shortDescription": {"text": self.short_description},
            "fullDescription": {"text": self.full_description},
            "help": {"text": self.help_text, "markdown": self.help_markdown},
            "defaultConfiguration": Value::Object(configuration),
        });
        if !self.properties.is_empty() {
            rule["properties"] = Value::Object(self.properties.clone());
        }
        rule
    }
}

/// The log as a value. Rules come in the order of `codes`, followed by any code a diagnostic
/// uses that `codes` lacks (so every `ruleIndex` is valid).
pub fn to_value(reports: &[FileReport], codes: &[&Code]) -> Value {
    to_value_described(reports, codes, &[])
}

/// [`to_value`], with `described` giving the `tool.driver.rules` entry of codes outside the
/// table (pack rules); a code used and neither in `codes` nor `described` gets an entry that
/// only names it.
pub fn to_value_described(
    reports: &[FileReport],
    codes: &[&Code],
    described: &[RuleEntry],
) -> Value {
    let mut rules: Vec<Value> = Vec::new();
    let mut rule_ids: Vec<&str> = Vec::new();
    for doc in codes {
        if !rule_ids.contains(&doc.code) {
            rule_ids.push(doc.code);
            rules.push(rule(doc));
        }
    }
    let mut extra: Vec<(&str, Severity)> = reports
        .iter()
        .flat_map(|r| &r.diagnostics)
        .filter(|d| !rule_ids.contains(&d.code.as_str()))
        .map(|d| (d.code.as_str(), d.severity))
        .collect();
    extra.sort();
    extra.dedup_by(|a, b| a.0 == b.0);
    for (code, severity) in extra {
        rule_ids.push(code);
        if let Some(entry) = described.iter().find(|e| e.id == code) {
            rules.push(entry.to_value());
            continue;
        }
        rules.push(json!({
            "id": code,
            "name": code,
            "shortDescription": {"text": code},
            "fullDescription": {"text": code},
            "help": {"text": format!("primgraph explain {code}")},
            "defaultConfiguration": {"level": level(severity)},
        }));
    }

    let mut results = Vec::new();
    for report in reports {
        let file = FileLocator {
            uri: artifact_uri(&report.file),
            reached_from: None,
        };
        for diag in &report.diagnostics {
            let rule_index = rule_ids.iter().position(|&id| id == diag.code).unwrap_or(0);
            match &diag.file {
                // In another file (a pack's, a fragment's): located there already.
                Some(other) => {
                    let elsewhere = FileLocator {
                        uri: artifact_uri(other),
                        reached_from: Some(file.uri.clone()),
                    };
                    results.push(elsewhere.result(diag, rule_index));
                }
                None => results.push(file.result(diag, rule_index)),
            }
        }
    }

    let mut driver = Map::new();
    driver.insert("name".into(), Value::from("primgraph"));
    driver.insert("version".into(), Value::from(env!("CARGO_PKG_VERSION")));
    driver.insert(
        "semanticVersion".into(),
        Value::from(env!("CARGO_PKG_VERSION")),
    );
    // Only a real address: the package's repository, when Cargo.toml declares one.
    let repository = env!("CARGO_PKG_REPOSITORY");
    if !repository.is_empty() {
        driver.insert("informationUri".into(), Value::from(repository));
    }
    driver.insert("rules".into(), Value::Array(rules));

    json!({
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": driver},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    })
}

/// The rows of `table` that some diagnostic of `reports` uses, in table order: a log describes
/// the rules its results use, not all 80-odd (SARIF allows either; a one-result log carrying
/// every rule's text buries the result).
pub fn rules_used(reports: &[FileReport], table: &[&'static Code]) -> Vec<&'static Code> {
    table
        .iter()
        .copied()
        .filter(|row| {
            reports
                .iter()
                .flat_map(|r| &r.diagnostics)
                .any(|d| d.code == row.code)
        })
        .collect()
}

/// The log, pretty-printed, with a final newline.
pub fn render(reports: &[FileReport], codes: &[&Code]) -> String {
    render_described(reports, codes, &[])
}

/// [`render`] with the entries of the pack rules the results use ([`to_value_described`]).
pub fn render_described(
    reports: &[FileReport],
    codes: &[&Code],
    described: &[RuleEntry],
) -> String {
    let mut out = serde_json::to_string_pretty(&to_value_described(reports, codes, described))
        .unwrap_or_default();
    out.push('\n');
    out
}

fn rule(row: &Code) -> Value {
    let doc = row.doc();
    let full = first_paragraph(&doc).unwrap_or(row.title);
    json!({
        "id": row.code,
        "name": rule_name(row.title, row.code),
        "shortDescription": {"text": row.title},
        "fullDescription": {"text": full},
        "help": {"text": doc, "markdown": doc},
        "defaultConfiguration": {"level": level(row.severity)},
    })
}

fn first_paragraph(doc: &str) -> Option<&str> {
    doc.split("\n\n").map(str::trim).find(|p| !p.is_empty())
}

/// An UpperCamelCase identifier from a title: `verifier bypass (witness path)` →
/// `VerifierBypassWitnessPath`.
pub fn rule_name(title: &str, code: &str) -> String {
    let name: String = title
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            chars.next().map_or(String::new(), |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect();
    if name.is_empty() {
        code.to_string()
    } else {
        name
    }
}

/// A relative URI reference for a path: forward slashes, no leading `./`, and
/// percent-encoding of everything outside RFC 3986's unreserved set and `/`.
pub fn artifact_uri(path: &str) -> String {
    let path = path.replace('\\', "/");
    let mut path = path.as_str();
    while let Some(rest) = path.strip_prefix("./") {
        path = rest;
    }
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

struct FileLocator {
    uri: String,
    /// The report's file when the results are located in another file (a fragment, a pack):
    /// part of their fingerprints, as their use sites are.
    reached_from: Option<String>,
}

/// A SARIF region (1-based, `endColumn` exclusive) for an extent; an empty extent still covers
/// one column for viewers, and an unlocated one is the file's first char.
fn region(extent: Option<Extent>) -> Value {
    let extent = extent.unwrap_or(Extent::FILE_START);
    let start_line = extent.line.max(1);
    let start_column = extent.column.max(1);
    let end_line = extent.end_line.max(start_line);
    let end_column = if end_line == start_line {
        extent.end_column.max(start_column + 1)
    } else {
        extent.end_column.max(1)
    };
    json!({
        "startLine": start_line,
        "startColumn": start_column,
        "endLine": end_line,
        "endColumn": end_column,
    })
}

impl FileLocator {
    fn physical_location(&self, extent: Option<Extent>) -> Value {
        json!({
            "artifactLocation": {"uri": self.uri},
            "region": region(extent),
        })
    }

    fn result(&self, diag: &Diagnostic, rule_index: usize) -> Value {
        let related: Vec<Value> = diag
            .related
            .iter()
            .enumerate()
            .map(|(i, r)| {
                // A related location in another file (a fragment's use site) names its artifact.
                let location = match r
                    .file
                    .as_deref()
                    .map(artifact_uri)
                    .filter(|u| *u != self.uri)
                {
                    Some(uri) => json!({
                        "artifactLocation": {"uri": uri},
                        "region": region(r.extent()),
                    }),
                    None => self.physical_location(r.extent()),
                };
                json!({
                    "id": i + 1,
                    "physicalLocation": location,
                    "message": {"text": non_empty(&r.message, &r.pointer)},
                })
            })
            .collect();
        let mut properties = Map::new();
        properties.insert("pointer".into(), Value::String(diag.pointer.clone()));
        if let Some(witness) = &diag.witness {
            properties.insert(
                "witness".into(),
                serde_json::to_value(witness).unwrap_or(Value::Null),
            );
        }
        if let Some(help) = &diag.help {
            properties.insert("help".into(), Value::String(help.clone()));
        }
        if let Some(seq) = diag.seq {
            properties.insert("seq".into(), Value::from(seq));
        }
        if let Some(by) = &diag.overridden_by {
            properties.insert(
                "overriddenBy".into(),
                serde_json::to_value(by).unwrap_or(Value::Null),
            );
        }
        let mut text = non_empty(&diag.message, &diag.code).to_string();
        if let Some(help) = &diag.help {
            text.push_str("\nhelp: ");
            text.push_str(help);
        }
        let mut result = Map::new();
        result.insert("ruleId".into(), Value::from(diag.code.as_str()));
        result.insert("ruleIndex".into(), Value::from(rule_index));
        result.insert("level".into(), Value::from(level(diag.severity)));
        result.insert("message".into(), json!({"text": text}));
        result.insert(
            "locations".into(),
            json!([{"physicalLocation": self.physical_location(diag.extent())}]),
        );
        if !related.is_empty() {
            result.insert("relatedLocations".into(), Value::Array(related));
        }
        if let Some(witness) = &diag.witness
            && let Some(path) = witness.nodes()
            && !path.is_empty()
        {
            result.insert(
                "codeFlows".into(),
                json!([self.code_flow(witness, path, diag)]),
            );
        }
        if let Some(by) = diag.overridden_by.as_ref().filter(|_| diag.is_suppressed()) {
            result.insert(
                "suppressions".into(),
                json!([{
                    "kind": "external",
                    "status": "accepted",
                    "justification": format!("turned off by {}", by.describe()),
                }]),
            );
        }
        result.insert(
            "partialFingerprints".into(),
            json!({"primgraphPointer/v1": self.fingerprint(diag)}),
        );
        result.insert("properties".into(), Value::Object(properties));
        Value::Object(result)
    }
}

impl FileLocator {
    /// A witness path as one thread flow: each step a location at its node's `id` (a step that
    /// names no node of the file, such as `$input`, is a location with only a message).
    fn code_flow(&self, witness: &super::Witness, path: &[String], diag: &Diagnostic) -> Value {
        let edges = match witness {
            super::Witness::Route { edges, .. } => edges.as_slice(),
            _ => &[],
        };
        let locations: Vec<Value> = path
            .iter()
            .enumerate()
            .map(|(step, name)| {
                // A route step names the edge that led to it: `gate` then `apply (via branch allow)`.
                let text = match step.checked_sub(1).and_then(|k| edges.get(k)) {
                    Some(edge) => match &edge.label {
                        Some(label) => format!("{name} (via {} `{label}`)", edge.kind),
                        None => format!("{name} (via {})", edge.kind),
                    },
                    None => name.clone(),
                };
                let mut location = Map::new();
                // A step in another file (a node expanded from a fragment, SPEC §9.3).
                if let Some(Some((file, line, column))) = diag.steps.get(step) {
                    location.insert(
                        "physicalLocation".into(),
                        json!({
                            "artifactLocation": {"uri": artifact_uri(file)},
                            "region": {
                                "startLine": (*line).max(1),
                                "startColumn": (*column).max(1),
                                "endLine": (*line).max(1),
                                "endColumn": (*column).max(1) + 1,
                            },
                        }),
                    );
                } else if let Some(Some(extent)) = diag.step_extents.get(step) {
                    location.insert(
                        "physicalLocation".into(),
                        self.physical_location(Some(*extent)),
                    );
                }
                location.insert("message".into(), json!({"text": text}));
                json!({"location": Value::Object(location), "executionOrder": step + 1})
            })
            .collect();
        json!({
            "message": {"text": format!("witness: {}", witness.describe())},
            "threadFlows": [{"locations": locations}],
        })
    }
}

fn non_empty<'s>(text: &'s str, fallback: &'s str) -> &'s str {
    if text.trim().is_empty() {
        fallback
    } else {
        text
    }
}

impl FileLocator {
    /// Stable across edits that move lines: the file, the code and the pointer. A result located
    /// in another file than the report's (a fragment's node, a pack's field) adds the report's
    /// file and the pointers of its related locations outside its own file (the use sites it is
    /// reached through): the same fragment node reached through two uses, or from two graphs,
    /// is two results GitHub must not merge.
    fn fingerprint(&self, diag: &Diagnostic) -> String {
        let mut parts = vec![self.uri.as_str(), diag.code.as_str(), diag.pointer.as_str()];
        if let Some(report) = &self.reached_from {
            parts.push(report);
            for r in &diag.related {
                // A related location naming no file is in the report's.
                let file = r.file.as_deref().unwrap_or(report);
                if artifact_uri(file) != self.uri {
                    parts.extend([file, r.pointer.as_str()]);
                }
            }
        }
        fingerprint(&parts)
    }
}

fn fingerprint(parts: &[&str]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part.as_bytes());
        hasher.update([0]);
    }
    hasher
        .finalize()
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect()
}
