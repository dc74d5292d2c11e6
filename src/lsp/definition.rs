//! Go to definition: from a node reference (`entry`, `next`, a `branches` or `on_error` target,
//! a binding's `from`) to the `id` of the node it names; from a node's `primitive` that a pack
//! defines to the primitive's contract in that pack's `pack.json` (SPEC §9.1); from a use's
//! `fragment` value to the fragment's file, and from a key of its `inputs`, `exits` or `with` to
//! that port's, exit's or parameter's declaration there (SPEC §9.3).

use super::scan::{Outline, Role, cursor_at, is_node_reference};

/// The byte range of the definition of the reference at `offset`, if there is one.
pub fn definition(text: &str, outline: &Outline, offset: usize) -> Option<std::ops::Range<usize>> {
    let cursor = cursor_at(text, offset);
    if cursor.role != Role::Value || !is_node_reference(&cursor.path) {
        return None;
    }
    let id = cursor.string.as_deref()?;
    outline
        .node(id)?
        .id
        .as_ref()
        .map(|(_, range)| range.clone())
}

/// The contract in its `pack.json` of the pack primitive a node's `primitive` at `offset` names.
pub fn pack_primitive(
    text: &str,
    registry: &super::settings::RegistryHandle,
    offset: usize,
) -> Option<lsp_types::Location> {
    use super::scan::Seg;
    let cursor = cursor_at(text, offset);
    let is_primitive = matches!(
        cursor.path.as_slice(),
        [Seg::Key(n), Seg::Index(_), Seg::Key(p)] if n == "nodes" && p == "primitive"
    );
    if cursor.role != Role::Value || !is_primitive {
        return None;
    }
    let key = cursor.string.as_deref()?;
    let pack = registry.pack_of(key)?;
    let primitive = pack.primitive(key)?;
    let span = pack.source.locate_nearest(&primitive.pointer);
    let source = pack.source.source_arc();
    let lines = super::position::LineMap::new(&source);
    let range = lines.range(&source, span.start, span.end);
    let path = std::path::absolute(&pack.manifest).ok()?;
    let uri: lsp_types::Uri = file_uri(&path).parse().ok()?;
    Some(lsp_types::Location::new(uri, range))
}

/// `file://` and the path, each byte outside the unreserved set and `/` percent-encoded.
pub fn file_uri(path: &std::path::Path) -> String {
    let mut out = String::from("file://");
    for &b in path.to_string_lossy().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The declaration a fragment use's `fragment` value, or a key of its `inputs`, `exits` or
/// `with`, at `offset` refers to, in the fragment's file.
pub fn fragment(
    text: &str,
    outline: &mut dyn FnMut() -> std::sync::Arc<Outline>,
    fragments: &super::fragments::Fragments,
    offset: usize,
) -> Option<lsp_types::Location> {
    use super::fragments::{Member, declaration};
    use super::scan::Seg;
    let cursor = cursor_at(text, offset);
    match (cursor.role, cursor.path.as_slice()) {
        (Role::Value, [Seg::Key(n), Seg::Index(_), Seg::Key(f)])
            if n == "nodes" && f == "fragment" =>
        {
            let f = fragments.get(cursor.string.as_deref()?)?;
            declaration(&f, None)
        }
        (Role::Key, [Seg::Key(n), Seg::Index(i), Seg::Key(field)]) if n == "nodes" => {
            let member = Member::of_field(field)?;
            let name = cursor.string.as_deref()?;
            let outline = outline();
            let key = &outline.at(*i)?.fragment.as_ref()?.0;
            let f = fragments.get(key)?;
            declaration(&f, Some((member, name)))
        }
        _ => None,
    }
}
