//! Recorded runs (SPEC §4): the trace format and its streaming reader (`trace`), digests
//! (`digest`), the writer a runtime records with (`writer`), the graph as replay resolves it
//! (`graph`), the replay engine (`engine`) with one file per D6xx code (`codes`), run reports
//! (`report`), corpus summaries (`summary`) and replay (`corpus`), synthetic traces
//! (`simulate`), the toolkit the codes' fault injectors share (`fault`), sealed traces' keys
//! and signatures (`seal`), and paired replay of one trace against two graphs in one pass
//! (`pair`).

pub mod codes;
pub mod corpus;
pub mod digest;
pub mod engine;
mod fault;
pub mod graph;
pub mod pair;
pub mod render;
pub mod report;
pub mod schema_gen;
pub mod seal;
pub mod simulate;
pub mod summary;
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
