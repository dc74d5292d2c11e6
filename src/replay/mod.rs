//! Recorded runs (SPEC §4): the trace format and all its parsing (`trace`), digests
//! (`digest`), the writer a runtime records with (`writer`), the graph as replay resolves it
//! (`graph`) and which node it selects next (`next_node`), the replay engine (`engine`) with
//! one file per D6xx code (`codes`) and the checks a paired step shares (`step_memo`), run
//! reports (`report`), corpus summaries (`summary`), their file (`summary_file`) and replay
//! (`corpus`), the toolkit the codes' fault injectors share (`fault`), sealed traces' keys and
//! signatures (`seal`), and paired replay of one trace against two graphs in one pass (`pair`).
//! The files stand on inner floors, each naming only lower ones (ARCHITECTURE.md;
//! `tests/it/tidy.rs` keeps the order); synthetic runs are `crate::simulate`, above this room.

pub mod codes;
pub mod corpus;
pub mod digest;
pub mod engine;
pub(crate) mod fault;
pub mod graph;
pub mod next_node;
pub mod pair;
pub mod render;
pub mod report;
pub mod schema_gen;
pub mod seal;
pub mod step_memo;
pub mod summary;
pub mod summary_file;
pub mod trace;
pub mod writer;

pub use engine::{ReplayOptions, Replayer};
pub use graph::{GraphLoadError, ReplayGraph};
pub use report::{RunReport, SealStatus, Verdict};
pub use seal::{SealError, SealKey, TrustedKey};
pub use summary::Summary;
pub use trace::{EndStatus, Imported, TraceHeader};
pub use writer::{Step, StepOrigin, StepResult, TraceWriter, WriteError};

use crate::registry::Registry;

/// Replay one trace given as bytes against a graph given as bytes (the fuzzing entry point):
/// never panics; a graph that does not load is an error, every trace problem is in the report.
pub fn replay_bytes(
    registry: &Registry,
    graph_bytes: &[u8],
    trace_bytes: &[u8],
) -> Result<RunReport, GraphLoadError> {
    let graph = ReplayGraph::load("<graph>", graph_bytes, registry)?;
    let replayer = Replayer::new(registry, graph, ReplayOptions::default());
    Ok(replayer.replay_slice("<trace>", trace_bytes))
}
