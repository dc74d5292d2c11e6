//! The registry invariants of SPEC §1.3, one file per lint code (L501–L510), whose `//!` header
//! is that code's documentation and whose row is in `crate::codes`. The core works on a
//! `serde_json::Value` and depends only on `std`, `serde_json`, `jsonschema` and the code table,
//! so `build.rs` includes this very directory (and `src/codes.rs`) by `#[path]` and fails the
//! build on the same findings `primgraph registry lint` reports.
//!
//! First a shape check ([`shape`]) makes sure every field the invariants and the loader read
//! exists with the right JSON type (a file that fails it is unusable input, not a finding);
//! then every check runs over a typed [`View`] of the file and appends [`Finding`]s, each with a
//! JSON pointer into the file. Duplicate JSON keys (also L501) are found by the strict parser
//! before this core runs.

pub mod l501_duplicate;
pub mod l502_malformed_id;
pub mod l503_vendor_name;
pub mod l504_class_authority;
pub mod l505_schema_compile;
pub mod l506_s1_forbidden_effect;
pub mod l507_fallback;
pub mod l508_family;
pub mod l509_unauthorized_effect;
pub mod l510_grants;
pub mod shape;

use crate::codes::Code;
use serde_json::Value;

/// One broken invariant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The code's row (`L501` … `L510`).
    pub code: &'static Code,
    /// JSON pointer (RFC 6901) of the offending value.
    pub pointer: String,
    pub message: String,
    /// The ID of the primitive concerned, when there is one.
    pub primitive: Option<String>,
    /// A second location (pointer, what is there), e.g. the first of two duplicates.
    pub related: Option<(String, String)>,
}

impl Finding {
    pub fn new(
        code: &'static Code,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Finding {
            code,
            pointer: pointer.into(),
            message: message.into(),
            primitive: None,
            related: None,
        }
    }

    fn of(mut self, prim: &PrimView<'_>) -> Self {
        self.primitive = prim.id.map(str::to_string);
        self
    }

    fn with_related(mut self, pointer: impl Into<String>, message: impl Into<String>) -> Self {
        self.related = Some((pointer.into(), message.into()));
        self
    }
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.primitive {
            Some(id) => write!(
                f,
                "{} primitive `{id}` ({}): {}",
                self.code.code, self.pointer, self.message
            ),
            None => write!(f, "{} {}: {}", self.code.code, self.pointer, self.message),
        }
    }
}

/// The file is not a registry at all: a field is missing or has the wrong JSON type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapeError {
    pub pointer: String,
    pub message: String,
}

impl std::fmt::Display for ShapeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = if self.pointer.is_empty() {
            "the document"
        } else {
            &self.pointer
        };
        write!(f, "not a registry: {at}: {}", self.message)
    }
}

/// One family, as the checks read it.
#[derive(Debug, Clone, Copy)]
pub struct FamilyView<'a> {
    pub index: usize,
    pub name: &'a str,
    pub prefix: &'a str,
}

/// One primitive, as the checks read it (absent optional fields read as empty).
#[derive(Debug, Clone)]
pub struct PrimView<'a> {
    pub index: usize,
    pub id: Option<&'a str>,
    pub alias: &'a str,
    pub family: &'a str,
    pub class: &'a str,
    pub authority: &'a str,
    pub inputs: &'a Value,
    pub outputs: &'a Value,
    pub outcomes: Option<Vec<&'a str>>,
    pub grants: Vec<&'a str>,
    pub effects: Vec<&'a str>,
    pub fallback: Option<&'a str>,
    pub requires_authorization: bool,
}

impl PrimView<'_> {
    /// The pointer of this primitive, or of one of its fields.
    pub fn pointer(&self, field: &str) -> String {
        if field.is_empty() {
            format!("/primitives/{}", self.index)
        } else {
            format!("/primitives/{}/{field}", self.index)
        }
    }

    pub fn label(&self) -> &str {
        self.id.unwrap_or("?")
    }

    pub fn has_effect(&self, effect: &str) -> bool {
        self.effects.contains(&effect)
    }
}

/// The typed view every check runs over.
#[derive(Debug, Clone)]
pub struct View<'a> {
    pub families: Vec<FamilyView<'a>>,
    pub primitives: Vec<PrimView<'a>>,
}

impl<'a> View<'a> {
    /// Read a value that passed [`shape::check`].
    pub fn new(root: &'a Value) -> Result<View<'a>, ShapeError> {
        shape::check(root)?;
        static EMPTY: Vec<Value> = Vec::new();
        let array = |key: &str| root.get(key).and_then(Value::as_array).unwrap_or(&EMPTY);
        let families = array("families")
            .iter()
            .enumerate()
            .map(|(index, f)| FamilyView {
                index,
                name: str_field(f, "name"),
                prefix: str_field(f, "prefix"),
            })
            .collect();
        let primitives = array("primitives")
            .iter()
            .enumerate()
            .map(|(index, p)| PrimView {
                index,
                id: p.get("id").and_then(Value::as_str),
                alias: str_field(p, "alias"),
                family: str_field(p, "family"),
                class: str_field(p, "class"),
                authority: str_field(p, "authority"),
                inputs: p.get("inputs").unwrap_or(&Value::Null),
                outputs: p.get("outputs").unwrap_or(&Value::Null),
                outcomes: p.get("outcomes").and_then(Value::as_array).map(|a| strs(a)),
                grants: p
                    .get("grants")
                    .and_then(Value::as_array)
                    .map_or_else(Vec::new, |a| strs(a)),
                effects: p
                    .get("effects")
                    .and_then(Value::as_array)
                    .map_or_else(Vec::new, |a| strs(a)),
                fallback: p.get("fallback").and_then(Value::as_str),
                requires_authorization: p
                    .get("requires_authorization")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            })
            .collect();
        Ok(View {
            families,
            primitives,
        })
    }

    pub fn family(&self, name: &str) -> Option<&FamilyView<'a>> {
        self.families.iter().find(|f| f.name == name)
    }

    /// The index of the primitive with this ID, if exactly one has it (the first otherwise).
    pub fn primitive_by_id(&self, id: &str) -> Option<usize> {
        self.primitives.iter().position(|p| p.id == Some(id))
    }
}

fn str_field<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn strs(items: &[Value]) -> Vec<&str> {
    items.iter().filter_map(Value::as_str).collect()
}

/// A check: appends its findings.
pub type Check = fn(&View<'_>, &mut Vec<Finding>);

/// Every check, in code order (codes, titles and docs are rows of `crate::codes`).
pub const CHECKS: &[Check] = &[
    l501_duplicate::check,
    l502_malformed_id::check,
    l503_vendor_name::check,
    l504_class_authority::check,
    l505_schema_compile::check,
    l506_s1_forbidden_effect::check,
    l507_fallback::check,
    l508_family::check,
    l509_unauthorized_effect::check,
    l510_grants::check,
];

/// Run every check over a registry document (already parsed without duplicate keys).
pub fn lint_value(root: &Value) -> Result<Vec<Finding>, ShapeError> {
    let view = View::new(root)?;
    let mut findings = Vec::new();
    for check in CHECKS {
        check(&view, &mut findings);
    }
    Ok(findings)
}
