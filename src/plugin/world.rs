//! The world `primgraph:primitive/primitive@1.0.0` as the checker knows it: the package, the
//! interface each effect of SPEC §1.2 needs and the functions it has, and the type of the one
//! export, `invoke`. `wit/primitive.wit` is the source; `tests/it/plugin_wit.rs` parses it with
//! `wit-parser` and checks these tables against it, so the two cannot drift apart.

use crate::registry::Effect;

/// The WIT text of the world (`wit/primitive.wit`), for hosts that generate bindings from it.
pub const WORLD_WIT: &str = include_str!("../../wit/primitive.wit");
/// The world's full name.
pub const WORLD: &str = "primgraph:primitive/primitive@1.0.0";
/// The package's namespace and name: imports `primgraph:primitive/<interface>@<version>`.
pub const NAMESPACE: &str = "primgraph";
pub const PACKAGE: &str = "primitive";
/// The world's major version: its compatibility (a 1.x world only adds optional imports).
pub const MAJOR: u64 = 1;
/// The one export.
pub const INVOKE: &str = "invoke";
/// The types the world itself defines: a component of the world imports those `invoke` uses
/// as types (not instances), by the component model's standard encoding.
pub const WORLD_TYPES: &[&str] = &["evidence", "cost", "step", "failure"];

/// One imported interface of the world: the effect that allows it and its functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interface {
    /// `workspace-read`, … (the import is `primgraph:primitive/<name>@1.x.y`).
    pub name: &'static str,
    /// The contract effect that allows importing it.
    pub effect: Effect,
    /// The functions the interface declares (a plugin imports some of them).
    pub functions: &'static [&'static str],
}

/// Effect ↔ interface, one each (SPEC §9.7).
pub const EFFECT_INTERFACES: [Interface; 7] = [
    Interface {
        name: "workspace-read",
        effect: Effect::ReadsWorkspace,
        functions: &["read-file", "list-dir"],
    },
    Interface {
        name: "workspace-write",
        effect: Effect::WritesWorkspace,
        functions: &["write-file", "remove-file"],
    },
    Interface {
        name: "exec",
        effect: Effect::ExecutesCode,
        functions: &["run"],
    },
    Interface {
        name: "network",
        effect: Effect::Network,
        functions: &["fetch"],
    },
    Interface {
        name: "mint-permission",
        effect: Effect::MintsPermission,
        functions: &["mint"],
    },
    Interface {
        name: "spend",
        effect: Effect::RaisesSpend,
        functions: &["charge", "remaining-usd"],
    },
    Interface {
        name: "cross-workspace",
        effect: Effect::CrossesWorkspace,
        functions: &["read-file", "write-file"],
    },
];

/// The interface of the world named `name`, if there is one.
pub fn interface(name: &str) -> Option<&'static Interface> {
    EFFECT_INTERFACES.iter().find(|i| i.name == name)
}

/// A component value type, as far as the checker compares one (the types `invoke` uses).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    String,
    U64,
    F64,
    Option(&'static Shape),
    List(&'static Shape),
    Record(&'static [(&'static str, Shape)]),
    Result {
        ok: &'static Shape,
        err: &'static Shape,
    },
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Shape::String => f.write_str("string"),
            Shape::U64 => f.write_str("u64"),
            Shape::F64 => f.write_str("f64"),
            Shape::Option(t) => write!(f, "option<{t}>"),
            Shape::List(t) => write!(f, "list<{t}>"),
            Shape::Record(fields) => {
                f.write_str("record { ")?;
                for (k, (name, t)) in fields.iter().enumerate() {
                    if k > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{name}: {t}")?;
                }
                f.write_str(" }")
            }
            Shape::Result { ok, err } => write!(f, "result<{ok}, {err}>"),
        }
    }
}

const EVIDENCE: Shape = Shape::Record(&[
    ("kind", Shape::String),
    ("digest", Shape::String),
    ("path", Shape::Option(&Shape::String)),
]);
const COST: Shape = Shape::Record(&[("usd", Shape::F64), ("tokens", Shape::U64)]);
/// `step` (SPEC §4.1's step fields a primitive decides).
pub const STEP: Shape = Shape::Record(&[
    ("output", Shape::String),
    ("outcome", Shape::Option(&Shape::String)),
    ("evidence", Shape::List(&EVIDENCE)),
    ("cost", COST),
]);
/// `failure` (SPEC §4.1's `error`).
pub const FAILURE: Shape = Shape::Record(&[("mode", Shape::String), ("message", Shape::String)]);
/// `invoke: func(input: string) -> result<step, failure>`: its parameters and result.
pub const INVOKE_PARAMS: &[(&str, Shape)] = &[("input", Shape::String)];
pub const INVOKE_RESULT: Shape = Shape::Result {
    ok: &STEP,
    err: &FAILURE,
};
