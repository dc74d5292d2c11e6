//! Document symbols: one per node, named by its ID, with its primitive as the detail; the range
//! is the node object, the selection its `id`.

use super::position::LineMap;
use super::scan::Outline;
use lsp_types::{DocumentSymbol, SymbolKind};

pub fn symbols(text: &str, lines: &LineMap, outline: &Outline) -> Vec<DocumentSymbol> {
    outline
        .nodes
        .iter()
        .map(|node| {
            let range = lines.range(text, node.range.start, node.range.end.max(node.range.start));
            let (name, selection) = match &node.id {
                Some((id, r)) => (id.clone(), lines.range(text, r.start, r.end)),
                None => (format!("nodes[{}]", node.index), range),
            };
            #[allow(deprecated)] // `deprecated` is a required field of the type
            DocumentSymbol {
                name,
                detail: node.primitive.as_ref().map(|(p, _)| p.clone()),
                kind: SymbolKind::OBJECT,
                tags: None,
                deprecated: None,
                range,
                selection_range: selection,
                children: None,
            }
        })
        .collect()
}
