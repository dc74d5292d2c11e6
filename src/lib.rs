//! primgraph validates agent graphs against the frozen Kernel ABI primitive registry and replays
//! recorded runs of them deterministically. The library owns all logic; the `primgraph` binary
//! only parses arguments and prints. See `ARCHITECTURE.md` for the code map.

pub mod codes;
pub mod config;
pub mod diagnostic;
pub mod graph;
pub mod json;
pub mod registry;
pub mod replay;
pub mod rules;
pub mod schema;
pub mod validate;
