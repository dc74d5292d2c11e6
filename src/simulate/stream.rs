//! Streaming simulation: one long run written step by step to a writer, never held in memory
//! and not replayed before it is returned (for benchmark traces of any size).

use super::walk::{Walker, distances_to_end};
use super::{SimError, SimOptions, run_header};
use crate::replay::engine::Replayer;
use crate::replay::writer::TraceWriter;
use crate::rng::Rng;

/// Write one long run straight to `out` without holding it in memory and without the replay
/// check `simulate_run` makes (for benchmark traces of any size; replay it to check it). Errors
/// are off so the walk cannot end early; returns the number of steps.
pub fn simulate_stream<W: std::io::Write>(
    replayer: &Replayer<'_>,
    options: &SimOptions,
    index: u64,
    out: W,
) -> Result<u64, SimError> {
    let dist = distances_to_end(replayer);
    let g = replayer.graph();
    let mut rng = Rng::derive(options.seed, index, 0);
    let header = run_header(g, options, index, &mut rng);
    let run_input = header.input.clone();
    let mut writer = TraceWriter::new(out, &header)?;
    if let Some(key) = &options.seal {
        writer = writer.sealed(key.clone());
    }
    let success = super::walk::reaches_success(replayer);
    let mut walker = Walker {
        replayer,
        dist: &dist,
        success: &success,
        success_bias: options.success_bias,
        rng,
        visits: vec![0; g.nodes.len()],
        latest: vec![None; g.nodes.len()],
        error_rate: 0.0,
        max_steps: g.max_steps.unwrap_or(options.default_max_steps),
        ignore_bounds: false,
        min_steps: options.min_steps,
    };
    let mut failure = None;
    let walked = walker.walk_into(&run_input, &mut |step| match writer.step(&step) {
        Ok(_) => true,
        Err(e) => {
            failure = Some(e);
            false
        }
    });
    if let Some(e) = failure {
        return Err(e.into());
    }
    let Some((steps, end)) = walked else {
        return Err(SimError::NoFaithfulRun {
            run: index + 1,
            reason: "the walk found no way to a terminal node within the bounds".into(),
        });
    };
    writer.end(end)?;
    writer.finish()?;
    Ok(steps)
}
