//! Go to definition: from a node reference (`entry`, `next`, a `branches` or `on_error` target,
//! a binding's `from`) to the `id` of the node it names.

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
