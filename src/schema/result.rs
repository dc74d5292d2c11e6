//! The answers of a compatibility check: the plain [`CompatVerdict`] (yes, no with a witness,
//! unknown), the [`Decision`] that carries a structured [`Reason`] (the keyword and the pointer
//! on each side), its §3.2 document, and the [`SchemaError`] for a schema the checker cannot use
//! at all.

use std::fmt;

use serde_json::Value;

/// The verdict of a compatibility check; `reason` is the [`Reason`] rendered as text.
#[derive(Debug, Clone, PartialEq)]
pub enum CompatVerdict {
    Yes,
    No { witness: Value, reason: String },
    Unknown { reason: String },
}

impl CompatVerdict {
    /// `"yes"`, `"no"` or `"unknown"`, as in the §3.2 document.
    pub fn label(&self) -> &'static str {
        match self {
            CompatVerdict::Yes => "yes",
            CompatVerdict::No { .. } => "no",
            CompatVerdict::Unknown { .. } => "unknown",
        }
    }
}

/// Why a verdict is what it is: the keyword that decided it and where it sits in each schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reason {
    /// The keyword that decided (e.g. `type`, `required`), or empty when none single one did.
    pub keyword: String,
    /// JSON pointer into the source schema, when the reason concerns a place in it.
    pub source_pointer: Option<String>,
    /// JSON pointer into the target schema, when the reason concerns a place in it.
    pub target_pointer: Option<String>,
    pub message: String,
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        let mut places = Vec::new();
        if !self.keyword.is_empty() {
            places.push(format!("keyword `{}`", self.keyword));
        }
        if let Some(pointer) = &self.source_pointer {
            places.push(format!("source at #{pointer}"));
        }
        if let Some(pointer) = &self.target_pointer {
            places.push(format!("target at #{pointer}"));
        }
        if !places.is_empty() {
            write!(f, " ({})", places.join(", "))?;
        }
        Ok(())
    }
}

/// A verdict with its structured reason.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    Yes { reason: Reason },
    No { witness: Value, reason: Reason },
    Unknown { reason: Reason },
}

impl Decision {
    pub fn reason(&self) -> &Reason {
        match self {
            Decision::Yes { reason }
            | Decision::No { reason, .. }
            | Decision::Unknown { reason } => reason,
        }
    }

    /// The plain verdict (`reason` rendered with [`Reason`]'s `Display`).
    pub fn verdict(&self) -> CompatVerdict {
        match self {
            Decision::Yes { .. } => CompatVerdict::Yes,
            Decision::No { witness, reason } => CompatVerdict::No {
                witness: witness.clone(),
                reason: reason.to_string(),
            },
            Decision::Unknown { reason } => CompatVerdict::Unknown {
                reason: reason.to_string(),
            },
        }
    }
}

/// Which of the two schemas an error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Source,
    Target,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Source => "source",
            Side::Target => "target",
        })
    }
}

/// A schema the checker cannot use at all (the CLI's exit 2).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaError {
    #[error("{side} schema is not a valid Draft 2020-12 schema at \"{pointer}\": {message}")]
    NotASchema {
        side: Side,
        pointer: String,
        message: String,
    },
    #[error(
        "{side} schema is too deep at \"{pointer}\": its nesting and `$ref` chains reach more \
         than {limit} levels"
    )]
    TooDeep {
        side: Side,
        pointer: String,
        limit: usize,
    },
    #[error(
        "{side} schema: `$ref` \"{reference}\" at \"{pointer}\" does not resolve in the document"
    )]
    UnresolvableRef {
        side: Side,
        pointer: String,
        reference: String,
    },
}

impl Decision {
    /// The §3.2 document: `{"verdict", "witness"?, "reason"?}`.
    pub fn to_document(&self) -> Value {
        let mut document = serde_json::Map::new();
        document.insert("verdict".into(), Value::from(self.verdict().label()));
        if let Decision::No { witness, .. } = self {
            document.insert("witness".into(), witness.clone());
        }
        if !matches!(self, Decision::Yes { .. }) {
            document.insert("reason".into(), Value::from(self.reason().to_string()));
        }
        Value::Object(document)
    }
}

impl SchemaError {
    pub fn side(&self) -> Side {
        match self {
            SchemaError::NotASchema { side, .. }
            | SchemaError::UnresolvableRef { side, .. }
            | SchemaError::TooDeep { side, .. } => *side,
        }
    }

    /// The pointer in the schema the error is about.
    pub fn pointer(&self) -> &str {
        match self {
            SchemaError::NotASchema { pointer, .. }
            | SchemaError::UnresolvableRef { pointer, .. }
            | SchemaError::TooDeep { pointer, .. } => pointer,
        }
    }
}
