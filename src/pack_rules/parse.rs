//! Reading a pack's `rules` array (SPEC §9.4) from its JSON value: every rule's fields are
//! checked (kind, selectors, bound, severity, id); a rule that fails is left out and reported
//! as P840 at the offending member of `pack.json`, with the fields it does have named. The
//! rules that pass are returned in file order.

// A refusal here is one located diagnostic, built at most once per pack or rule: returned by
// value rather than boxed, as every other check reports.
#![allow(clippy::result_large_err)]
use super::{Kind, PackRule, Passage, Selector};
use crate::codes;
use crate::diagnostic::{Diagnostic, Severity};
use crate::json::pointer::escape_token;
use crate::registry::{Authority, Class, Effect};
use serde_json::Value;

/// The members a rule may have, whatever its kind.
const COMMON: &[&str] = &["id", "severity", "kind", "summary", "help"];

/// The kinds, each with its required and optional members beyond [`COMMON`].
const KINDS: &[(&str, &[&str], &[&str])] = &[
    ("requires_before", &["target", "through"], &[]),
    ("requires_after", &["target", "through"], &[]),
    ("forbids_path", &["from", "to"], &["unless_through"]),
    ("bounded", &["target", "max_visits"], &[]),
];

/// The fields of a selector; `outcome` only where the selector is passed through.
const SELECTOR_FIELDS: &[&str] = &[
    "primitive",
    "family",
    "class",
    "authority",
    "effect",
    "pack",
];

/// Whether `name` is a well-formed pack name (SPEC §9.1: `^[a-z][a-z0-9-]*$`).
pub fn is_pack_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// Whether `id` is a well-formed rule id: `^[a-z][a-z0-9_-]*$` (SPEC §9.4 shows kebab-case
/// ids; the pattern is this project's, see `docs/pack-rules.md`). It never holds `/`, so
/// `PACK/RULE` splits one way only.
pub fn is_rule_id(id: &str) -> bool {
    let mut chars = id.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && id.len() <= 128
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

/// Read the `rules` array of pack `pack`, found at `pointer` in `pack.json`. Returns the valid
/// rules and a P840 for each invalid one (and for a `rules` member that is not an array).
pub fn parse_rules(pack: &str, value: &Value, pointer: &str) -> (Vec<PackRule>, Vec<Diagnostic>) {
    let mut rules = Vec::new();
    let mut errors = Vec::new();
    let Some(items) = value.as_array() else {
        errors.push(codes::P840.at(
            pointer,
            format!("`rules` must be an array of rules, not {}", kind_of(value)),
        ));
        return (rules, errors);
    };
    let mut seen: Vec<(String, String)> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let at = format!("{pointer}/{i}");
        match parse_rule(pack, item, &at) {
            Ok(rule) => {
                if let Some((_, first)) = seen.iter().find(|(id, _)| *id == rule.id) {
                    errors.push(
                        codes::P840
                            .at(
                                format!("{at}/id"),
                                format!("rule id `{}` is used twice in this pack", rule.id),
                            )
                            .with_related(first.clone(), "first used here")
                            .with_help("give every rule of a pack its own id: it is the second half of the finding's code"),
                    );
                    continue;
                }
                seen.push((rule.id.clone(), format!("{at}/id")));
                rules.push(rule);
            }
            Err(error) => errors.push(error),
        }
    }
    (rules, errors)
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn invalid(pointer: impl Into<String>, message: impl Into<String>) -> Diagnostic {
    codes::P840.at(pointer, message)
}

fn parse_rule(pack: &str, item: &Value, at: &str) -> Result<PackRule, Diagnostic> {
    let Some(object) = item.as_object() else {
        return Err(invalid(
            at,
            format!("a rule is an object, not {}", kind_of(item)),
        ));
    };
    let id = match object.get("id") {
        Some(Value::String(id)) if is_rule_id(id) => id.clone(),
        Some(Value::String(id)) => {
            return Err(invalid(
                format!("{at}/id"),
                format!("rule id `{id}` is not `^[a-z][a-z0-9_-]*$` (at most 128 characters)"),
            ));
        }
        Some(other) => {
            return Err(invalid(
                format!("{at}/id"),
                format!("`id` must be a string, not {}", kind_of(other)),
            ));
        }
        None => return Err(invalid(at, "the rule has no `id`")),
    };
    let named = |message: String| format!("rule `{id}`: {message}");
    let kind_name = match object.get("kind") {
        Some(Value::String(kind)) => kind.as_str(),
        Some(other) => {
            return Err(invalid(
                format!("{at}/kind"),
                named(format!("`kind` must be a string, not {}", kind_of(other))),
            ));
        }
        None => {
            return Err(invalid(at, named("the rule has no `kind`".into())).with_help(kinds_help()));
        }
    };
    let Some(&(_, required, optional)) = KINDS.iter().find(|(k, _, _)| *k == kind_name) else {
        let near = crate::diagnostic::suggest::nearest(kind_name, KINDS.iter().map(|k| k.0), 1);
        let hint = crate::diagnostic::suggest::did_you_mean(&near)
            .map(|d| format!(" ({d})"))
            .unwrap_or_default();
        return Err(invalid(
            format!("{at}/kind"),
            named(format!("unknown rule kind `{kind_name}`{hint}")),
        )
        .with_help(kinds_help()));
    };
    for key in object.keys() {
        let known = COMMON.contains(&key.as_str())
            || required.contains(&key.as_str())
            || optional.contains(&key.as_str());
        if !known {
            let used_elsewhere = KINDS
                .iter()
                .any(|(_, r, o)| r.contains(&key.as_str()) || o.contains(&key.as_str()));
            let message = if used_elsewhere {
                format!("`{key}` is not a member of a `{kind_name}` rule")
            } else {
                format!("unknown member `{key}`")
            };
            let allowed: Vec<&str> = COMMON
                .iter()
                .chain(required.iter())
                .chain(optional.iter())
                .copied()
                .collect();
            return Err(
                invalid(format!("{at}/{}", escape_token(key)), named(message)).with_help(format!(
                    "a `{kind_name}` rule has the members {}",
                    allowed.join(", ")
                )),
            );
        }
    }
    if let Some(missing) = required.iter().find(|k| !object.contains_key(**k)) {
        return Err(
            invalid(at, named(format!("a `{kind_name}` rule needs `{missing}`"))).with_help(
                format!(
                    "a `{kind_name}` rule has {}",
                    required
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(" and ")
                ),
            ),
        );
    }
    let severity = match object.get("severity") {
        None => Severity::Error,
        Some(Value::String(s)) => match s.as_str() {
            "error" => Severity::Error,
            "warning" => Severity::Warning,
            "info" => Severity::Info,
            other => {
                return Err(invalid(
                    format!("{at}/severity"),
                    named(format!(
                        "unknown severity `{other}`: use `error`, `warning` or `info`"
                    )),
                ));
            }
        },
        Some(other) => {
            return Err(invalid(
                format!("{at}/severity"),
                named(format!(
                    "`severity` must be a string, not {}",
                    kind_of(other)
                )),
            ));
        }
    };
    let text = |key: &str| -> Result<Option<String>, Diagnostic> {
        match object.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(invalid(
                format!("{at}/{key}"),
                named(format!("`{key}` must be a string, not {}", kind_of(other))),
            )),
        }
    };
    let summary = text("summary")?;
    let help = text("help")?;
    let selector = |key: &str, passage: bool| -> Result<Selector, Diagnostic> {
        parse_selector(
            object.get(key).unwrap_or(&Value::Null),
            &format!("{at}/{key}"),
            key,
            passage,
        )
        .map_err(|d| {
            let message = named(d.message.clone());
            Diagnostic { message, ..d }
        })
    };
    let kind = match kind_name {
        "requires_before" => Kind::RequiresBefore {
            target: selector("target", false)?,
            through: Passage::of(selector("through", true)?),
        },
        "requires_after" => Kind::RequiresAfter {
            target: selector("target", false)?,
            through: Passage::of(selector("through", true)?),
        },
        "forbids_path" => Kind::ForbidsPath {
            from: selector("from", false)?,
            to: selector("to", false)?,
            unless_through: match object.get("unless_through") {
                Some(_) => Some(Passage::of(selector("unless_through", true)?)),
                None => None,
            },
        },
        _ => {
            let bound = object.get("max_visits").unwrap_or(&Value::Null);
            let max_visits = bound
                .as_u64()
                .filter(|n| (1..=u64::from(u32::MAX)).contains(n))
                .ok_or_else(|| {
                    invalid(
                        format!("{at}/max_visits"),
                        named(format!(
                            "`max_visits` must be a positive integer (as a node's `max_visits`), not {bound}"
                        )),
                    )
                })? as u32;
            Kind::Bounded {
                target: selector("target", false)?,
                max_visits,
            }
        }
    };
    Ok(PackRule {
        pack: pack.to_string(),
        code: crate::codes::CodeName::from(format!("{pack}/{id}")),
        id,
        severity,
        kind,
        summary,
        help,
        pointer: at.to_string(),
        definition: item.clone(),
    })
}

fn kinds_help() -> String {
    format!(
        "the kinds are {}",
        KINDS
            .iter()
            .map(|k| format!("`{}`", k.0))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// Read one selector. `passage`: the selector says what a path passes (`through`,
/// `unless_through`), where `outcome` is allowed too.
fn parse_selector(
    value: &Value,
    at: &str,
    key: &str,
    passage: bool,
) -> Result<Selector, Diagnostic> {
    let Some(object) = value.as_object() else {
        return Err(invalid(
            at,
            format!("`{key}` must be a selector object, not {}", kind_of(value)),
        ));
    };
    if object.is_empty() {
        return Err(invalid(
            at,
            format!(
                "`{key}` is an empty selector: name at least one of {}",
                SELECTOR_FIELDS.join(", ")
            ),
        ));
    }
    let mut selector = Selector::default();
    for (field, v) in object {
        let field_at = format!("{at}/{}", escape_token(field));
        let allowed = SELECTOR_FIELDS.contains(&field.as_str()) || (passage && field == "outcome");
        if !allowed {
            let message = if field == "outcome" {
                format!(
                    "`outcome` is only allowed where a path passes a node (`through`, `unless_through`), not in `{key}`"
                )
            } else {
                let mut fields: Vec<&str> = SELECTOR_FIELDS.to_vec();
                if passage {
                    fields.push("outcome");
                }
                let near = crate::diagnostic::suggest::nearest(field, fields.iter().copied(), 1);
                let hint = crate::diagnostic::suggest::did_you_mean(&near)
                    .map(|d| format!(" ({d})"))
                    .unwrap_or_default();
                format!(
                    "unknown selector field `{field}`{hint}; a selector has {}",
                    fields.join(", ")
                )
            };
            return Err(invalid(field_at, message));
        }
        let Some(text) = v.as_str() else {
            return Err(invalid(
                field_at,
                format!(
                    "selector field `{field}` must be a string, not {}",
                    kind_of(v)
                ),
            ));
        };
        let bad_value = |what: &str, names: Vec<&str>| {
            invalid(
                field_at.clone(),
                format!(
                    "unknown {what} `{text}`; the known values of `{what}` are {}",
                    names.join(", ")
                ),
            )
        };
        match field.as_str() {
            "primitive" => {
                if !is_primitive_pattern(text) {
                    return Err(invalid(
                        field_at,
                        format!(
                            "`{text}` is not a primitive selector: a dotted ID, an alias or `prefix.*`"
                        ),
                    ));
                }
                selector.primitive = Some(text.to_string());
            }
            "family" => selector.family = Some(text.to_string()),
            "class" => {
                selector.class = Some(Class::parse(text).ok_or_else(|| {
                    bad_value("class", Class::ALL.iter().map(|c| c.as_str()).collect())
                })?)
            }
            "authority" => {
                selector.authority = Some(
                    serde_json::from_value::<Authority>(Value::String(text.to_string())).map_err(
                        |_| {
                            bad_value(
                                "authority",
                                vec!["propose", "decide", "verify", "authorize"],
                            )
                        },
                    )?,
                )
            }
            "effect" => {
                selector.effect = Some(
                    serde_json::from_value::<Effect>(Value::String(text.to_string())).map_err(
                        |_| {
                            bad_value(
                                "effect",
                                vec![
                                    "reads_workspace",
                                    "writes_workspace",
                                    "executes_code",
                                    "network",
                                    "mints_permission",
                                    "raises_spend",
                                    "crosses_workspace",
                                ],
                            )
                        },
                    )?,
                )
            }
            "pack" => {
                if !is_pack_name(text) {
                    return Err(invalid(
                        field_at,
                        format!("`{text}` is not a pack name (`^[a-z][a-z0-9-]*$`)"),
                    ));
                }
                selector.pack = Some(text.to_string())
            }
            _ => {
                if text.is_empty() {
                    return Err(invalid(field_at, "`outcome` is empty"));
                }
                if text == "*" {
                    return Err(invalid(
                        field_at,
                        "`outcome` names one outcome; `\"*\"` covers whatever a node does not list, so passing it proves nothing",
                    ));
                }
                selector.outcome = Some(text.to_string())
            }
        }
    }
    Ok(selector)
}

/// A dotted ID, an alias, or `prefix.*` (the forms of a graph's `capabilities`).
fn is_primitive_pattern(text: &str) -> bool {
    let lower_segment = |s: &str| {
        let mut chars = s.chars();
        chars.next().is_some_and(|c| c.is_ascii_lowercase())
            && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    };
    if let Some(prefix) = text.strip_suffix(".*") {
        return prefix.split('.').all(lower_segment);
    }
    if text.contains('.') {
        let mut segments = text.split('.');
        return segments.next().is_some_and(lower_segment) && segments.all(lower_segment);
    }
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_uppercase())
        && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}
