//! Agent graph documents (SPEC §2): the typed document (`doc`), its loading from a parsed JSON
//! value with every shape error located (`load`), and the control-flow model (`model`): a
//! petgraph graph with reachability, SCCs and dominators shared by the rules.

pub mod doc;
pub mod generate;
pub mod load;
pub mod model;
pub mod render;

pub use doc::{Binding, Budget, GraphDoc, INPUT_WORD, NodeDoc, SmallMap, Source};
pub use load::{ShapeError, load};
pub use model::{EdgeKind, Model};
