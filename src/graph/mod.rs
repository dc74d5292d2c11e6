//! Agent graph documents (SPEC §2): the typed document, its loading from spanned JSON, and the
//! control-flow model (petgraph) with reachability, SCCs and dominators shared by the rules.
//!
//! SKELETON: `doc` holds the document types every part uses; the model and the loader are filled
//! in by the validation work.

pub mod doc;

pub use doc::{Binding, Budget, GraphDoc, NodeDoc};
