//! Fragments in the editor (SPEC §9.3): which fragments a document can use (the packs of the
//! editor's composition, every pack on the pack path; and in a fragment file, its own pack with
//! the packs that one requires), the hover text of a fragment's interface, and where a fragment,
//! a port, an exit or a parameter is declared in its file. Completion and hover call in here
//! from their own modules; the standalone check of an open `*.fragment.json` is
//! [`crate::pack::fragment_expand::check_alone`], run by `worker`.

use super::hover::{properties, type_name};
use crate::pack::compose::{Base, Composer, ComposerOptions, Composition};
use crate::pack::fragment::{Fragment, fragments_of};
use crate::pack::{Pack, Range};
use crate::registry::Registry;
use serde_json::Value;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The packs whose fragments a document may name, first of a name wins.
#[derive(Clone, Default)]
pub struct Fragments {
    packs: Vec<Arc<Pack>>,
}

impl Fragments {
    /// The fragments of every pack of these compositions.
    pub fn of(compositions: &[Arc<Composition>]) -> Fragments {
        let mut packs: Vec<Arc<Pack>> = Vec::new();
        for c in compositions {
            for p in &c.packs {
                if !packs.iter().any(|q| q.name == p.name) {
                    packs.push(p.clone());
                }
            }
        }
        Fragments { packs }
    }

    /// The loaded fragment `PACK/NAME`.
    pub fn get(&self, key: &str) -> Option<Arc<Fragment>> {
        let (pack, name) = key.split_once('/')?;
        let pack = self.packs.iter().find(|p| p.name == pack)?;
        fragments_of(pack).by_name.get(name)?.as_ref().ok().cloned()
    }

    /// Every loaded fragment, by pack then name.
    pub fn all(&self) -> Vec<Arc<Fragment>> {
        self.packs
            .iter()
            .flat_map(|p| {
                fragments_of(p)
                    .by_name
                    .values()
                    .filter_map(|f| f.as_ref().ok().cloned())
                    .collect::<Vec<_>>()
            })
            .collect()
    }
}

/// The folder of the pack a file is in: the nearest folder upwards with a `pack.json`.
pub fn pack_dir_of(file: &Path) -> Option<PathBuf> {
    file.ancestors()
        .skip(1)
        .find(|dir| dir.join(crate::pack::MANIFEST).is_file())
        .map(Path::to_path_buf)
}

/// The pack in `dir` composed with the packs it requires, found in its own folder first, then on
/// `pack_path`, over `base` (as `pack lint` composes it). `None` when the pack does not load or
/// compose: its findings are `pack.json`'s to show.
pub fn own_pack(dir: &Path, base: Base, pack_path: &[PathBuf]) -> Option<Arc<Composition>> {
    let pack = crate::pack::manifest::load(dir, base.registry()).ok()?;
    let mut path = vec![dir.to_path_buf()];
    path.extend(pack_path.iter().cloned());
    let composer = Composer::new(
        base,
        crate::pack::path::PackPath::scan(&path),
        ComposerOptions::default(),
    );
    let exact = format!("={}", pack.version);
    let range = Range {
        req: crate::pack::parse_range(&exact)?,
        text: exact,
        pointer: "/version".into(),
    };
    composer
        .compose(&pack.manifest, &[(pack.name.clone(), range)])
        .ok()
}

/// A fragment's interface as Markdown: its summary, parameters, ports, exits and file.
pub fn hover(f: &Fragment, registry: &Registry) -> String {
    let mut out = format!("**fragment `{}`**\n\n", f.key());
    if let Some(summary) = &f.summary {
        let _ = write!(out, "{summary}\n\n");
    }
    let params: Vec<String> = match f.params.as_ref().and_then(|p| p.get("properties")) {
        Some(Value::Object(props)) => props
            .iter()
            .map(|(name, schema)| {
                let default = schema
                    .get("default")
                    .map(|d| format!(", default `{d}`"))
                    .unwrap_or_default();
                format!("`{name}`: {}{default}", type_name(schema))
            })
            .collect(),
        _ => Vec::new(),
    };
    let _ = writeln!(out, "- params: {}", joined(params));
    let inputs: Vec<String> = f
        .inputs
        .iter()
        .map(|(port, schema)| {
            let fields = if schema.get("properties").is_some() {
                format!(" {{{}}}", properties(schema))
            } else {
                String::new()
            };
            format!("`{port}`: {}{fields}", type_name(schema))
        })
        .collect();
    let _ = writeln!(
        out,
        "- inputs (each bound exactly once): {}",
        joined(inputs)
    );
    let outputs: Vec<String> = f
        .outputs
        .iter()
        .map(|(port, out)| {
            let ty = f
                .node(&out.from)
                .and_then(|(_, n)| n.get("primitive")?.as_str())
                .and_then(|p| registry.lookup(p))
                .and_then(|p| crate::schema::select::select(&p.outputs, &out.at).ok())
                .map(|s| format!(": {}", type_name(&s.schema)))
                .unwrap_or_default();
            format!("`{port}`{ty} (from `{}` at `{}`)", out.from, out.at)
        })
        .collect();
    let _ = writeln!(out, "- outputs: {}", joined(outputs));
    let exits: Vec<String> = f.exits.iter().map(|e| format!("`{e}`")).collect();
    let _ = writeln!(out, "- exits (each wired): {}", joined(exits));
    let _ = writeln!(out, "- entry `{}` · file `{}`", f.entry, f.file);
    out
}

fn joined(items: Vec<String>) -> String {
    if items.is_empty() {
        "none".into()
    } else {
        items.join(", ")
    }
}

/// What a key of a use object names in its fragment: a port, an exit or a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Member {
    Input,
    Exit,
    Param,
}

impl Member {
    /// The member of a use object whose keys these are (`inputs`, `exits`, `with`).
    pub fn of_field(field: &str) -> Option<Member> {
        match field {
            "inputs" => Some(Member::Input),
            "exits" => Some(Member::Exit),
            "with" => Some(Member::Param),
            _ => None,
        }
    }
}

/// The names a use may write under `member`, with a detail for each.
pub fn names(f: &Fragment, member: Member) -> Vec<(String, String)> {
    match member {
        Member::Input => f
            .inputs
            .iter()
            .map(|(p, s)| (p.clone(), format!("input port: {}", type_name(s))))
            .collect(),
        Member::Exit => f
            .exits
            .iter()
            .map(|e| (e.clone(), format!("exit of {}", f.key())))
            .collect(),
        Member::Param => match f.params.as_ref().and_then(|p| p.get("properties")) {
            Some(Value::Object(props)) => props
                .iter()
                .map(|(name, schema)| {
                    let default = schema
                        .get("default")
                        .map(|d| format!(", default {d}"))
                        .unwrap_or_default();
                    (
                        name.clone(),
                        format!("parameter: {}{default}", type_name(schema)),
                    )
                })
                .collect(),
            _ => Vec::new(),
        },
    }
}

/// Where in its file a fragment declares itself (`member: None`: its `fragment` name) or one
/// of its ports, exits or parameters: a location for go to definition.
pub fn declaration(f: &Fragment, member: Option<(Member, &str)>) -> Option<lsp_types::Location> {
    let pointer = match member {
        None => "/fragment".to_string(),
        Some((Member::Input, name)) => crate::json::pointer::push("/inputs", name),
        Some((Member::Param, name)) => crate::json::pointer::push("/params/properties", name),
        Some((Member::Exit, name)) => {
            format!("/exits/{}", f.exits.iter().position(|e| e == name)?)
        }
    };
    let nearest = f.parsed.nearest(&pointer);
    let span = match member {
        None => nearest.value,
        Some(_) => nearest.key.unwrap_or(nearest.value),
    };
    let source = f.parsed.source_arc();
    let lines = super::position::LineMap::new(&source);
    let range = lines.range(&source, span.start, span.end);
    let path = std::path::absolute(&f.file).ok()?;
    let uri = super::definition::file_uri(&path).parse().ok()?;
    Some(lsp_types::Location::new(uri, range))
}
