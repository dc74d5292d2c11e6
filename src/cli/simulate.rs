//! `primgraph simulate G --runs N --seed S --out DIR [--faults RATE]`: write synthetic faithful
//! traces of a graph (deterministic for a seed), and with `--faults` a seeded share of runs with
//! one known defect each plus a `NAME.expected.json` sidecar naming it. With `--sign KEY` every
//! run is sealed (SPEC §4.1). A folder that already holds anything is refused without
//! `--force`: writing into it would mix two corpora (some runs replaced, the rest kept).

use primgraph::replay::{Replayer, SealKey};
use primgraph::simulate::{SimOptions, simulate_run, simulate_stream};
use rayon::prelude::*;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct SimulateArgs {
    /// The graph to simulate.
    pub graph: PathBuf,
    /// How many runs to write (`run-000001.trace.jsonl`, …).
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub runs: u64,
    /// The seed: the same graph, seed and options always write the same traces.
    #[arg(long, default_value_t = 0, value_name = "S")]
    pub seed: u64,
    /// The folder the traces are written to (created when missing; refused when it already
    /// holds anything, unless `--force`).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Write into a folder that is not empty (runs of the same name are replaced, others kept).
    #[arg(long)]
    pub force: bool,
    /// Share of runs (0 to 1) that get one seeded defect, each with a `NAME.expected.json`
    /// sidecar naming it.
    #[arg(long, default_value_t = 0.0, value_name = "RATE")]
    pub faults: f64,
    /// A registry file instead of the embedded Kernel ABI 1.0.0.
    #[arg(long, value_name = "FILE")]
    pub registry: Option<PathBuf>,
    /// Take loops (within their bounds) until each run has this many steps.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub min_steps: u64,
    /// Write each run straight to disk without keeping it in memory or replaying it first
    /// (for very long benchmark traces; no error steps, no faults).
    #[arg(long)]
    pub stream: bool,
    /// Seal every run with this private key (written by `primgraph keygen`).
    #[arg(long, value_name = "KEY")]
    pub sign: Option<PathBuf>,
    /// Record N distinct tasks, run i taking task i mod N (inputs seeded by the task alone, so
    /// the corpora of two graph versions share them); 0: every run its own input.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub tasks: u64,
    #[command(flatten)]
    pub packs: super::pack_path::PackArgs,
}

pub fn run(args: SimulateArgs) -> ExitCode {
    if !(0.0..=1.0).contains(&args.faults) {
        return super::usage_error("--faults is a share of runs between 0 and 1");
    }
    let registry = match super::load_registry(&args.registry) {
        Ok(r) => r,
        Err(e) => return super::usage_error(e),
    };
    let composer = match args.packs.discover(registry) {
        Ok(c) => c,
        Err(e) => return super::usage_error(e),
    };
    let graph = match super::replay::load_graph_with(&args.graph, registry, composer) {
        Ok(g) => g,
        Err(e) => return super::usage_error(e),
    };
    // A graph that declares packs runs on their effective registry; its traces record them.
    let composition = graph.composition.clone();
    let registry: &primgraph::registry::Registry =
        composition.as_ref().map_or(registry, |c| &c.registry);
    if !args.force
        && let Ok(mut entries) = std::fs::read_dir(&args.out)
        && entries.next().is_some()
    {
        return super::usage_error(format!(
            "{} is not empty: writing into it would mix two corpora; name an empty or new folder, or pass --force",
            args.out.display()
        ));
    }
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        return super::usage_error(format!("cannot create {}: {e}", args.out.display()));
    }
    let seal = match &args.sign {
        Some(path) => match SealKey::read(path) {
            Ok(k) => Some(k),
            Err(e) => return super::usage_error(e),
        },
        None => None,
    };
    let replayer = Replayer::new(registry, graph, Default::default());
    let options = SimOptions {
        seed: args.seed,
        fault_rate: args.faults,
        min_steps: args.min_steps,
        seal,
        tasks: args.tasks,
        ..SimOptions::default()
    };
    if args.stream {
        return stream(&replayer, &options, &args);
    }
    // Progress on stderr, only on a terminal (never in a pipe or a CI log).
    let bar = if std::io::IsTerminal::is_terminal(&std::io::stderr()) && args.runs > 1 {
        super::replay::progress_bar(args.runs, indicatif::ProgressDrawTarget::stderr_with_hz(10))
    } else {
        indicatif::ProgressBar::hidden()
    };
    let result: Result<u64, String> = (0..args.runs)
        .into_par_iter()
        .map(|i| {
            bar.inc(1);
            let run = simulate_run(&replayer, &options, i).map_err(|e| e.to_string())?;
            let path = args.out.join(format!("{}.trace.jsonl", run.name));
            std::fs::write(&path, &run.trace)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            let sidecar = args.out.join(format!("{}.expected.json", run.name));
            match &run.fault {
                Some(f) => std::fs::write(&sidecar, f.sidecar())
                    .map_err(|e| format!("cannot write {}: {e}", sidecar.display()))?,
                None => {
                    if sidecar.exists() {
                        std::fs::remove_file(&sidecar)
                            .map_err(|e| format!("cannot remove {}: {e}", sidecar.display()))?;
                    }
                }
            }
            Ok(u64::from(run.fault.is_some()))
        })
        .try_reduce(|| 0, |a, b| Ok(a + b));
    bar.finish_and_clear();
    match result {
        Ok(faulty) => {
            eprintln!(
                "wrote {} ({faulty} with a defect) to {}",
                primgraph::diagnostic::counted(args.runs, "trace", "traces"),
                args.out.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => super::usage_error(e),
    }
}

fn stream(replayer: &Replayer<'_>, options: &SimOptions, args: &SimulateArgs) -> ExitCode {
    for i in 0..args.runs {
        let path = args.out.join(format!("run-{:06}.trace.jsonl", i + 1));
        let file = match std::fs::File::create(&path) {
            Ok(f) => std::io::BufWriter::with_capacity(1 << 20, f),
            Err(e) => return super::usage_error(format!("cannot write {}: {e}", path.display())),
        };
        match simulate_stream(replayer, options, i, file) {
            Ok(steps) => eprintln!("wrote {} ({steps} steps)", path.display()),
            Err(e) => return super::usage_error(e),
        }
    }
    ExitCode::SUCCESS
}
