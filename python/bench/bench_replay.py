"""Speed of the Python binding against its Rust baselines (issue 14), with a plain timer.

1. Replay: `primgraph.replay_corpus(graph, folder, jobs=N)` over 2,000 simulated traces against
   `primgraph replay --graph G --jobs N --format json folder` (the CLI, run from this process
   on the same files). Target: Python throughput ≥ 0.9 × the CLI's.
2. Validation: `primgraph.validate(text=…)` of graphs/fix-failing-test.graph.json against the
   criterion median of `validate_str` on the same string (`cargo bench --bench embed`, read from
   target/criterion). Target: Python ≤ 1.5 × Rust.

Run it with a release wheel installed and a release CLI built:

    cargo build --release --bin primgraph
    cargo bench --bench embed -- --warm-up-time 1 --measurement-time 3
    python python/bench/bench_replay.py [--jobs 2] [--runs 2000] [--repeat 5]

It prints both figures and exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import primgraph as pg

REPO = pathlib.Path(__file__).resolve().parents[2]
GRAPH = REPO / "graphs" / "fix-failing-test.graph.json"
CRITERION = REPO / "target" / "criterion" / "embed" / "validate_example" / "new" / "estimates.json"


def cli_binary() -> pathlib.Path:
    path = pathlib.Path(os.environ.get("PRIMGRAPH_BIN", REPO / "target" / "release" / "primgraph"))
    if not path.exists():
        sys.exit(f"no CLI at {path}: cargo build --release --bin primgraph (or set PRIMGRAPH_BIN)")
    return path


def timed(fn, repeat: int) -> list:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def bench_replay(cli: pathlib.Path, runs: int, jobs: int, repeat: int) -> bool:
    with tempfile.TemporaryDirectory(prefix="pg-bench-") as tmp:
        subprocess.run(
            [str(cli), "simulate", str(GRAPH), "--runs", str(runs), "--seed", "14",
             "--faults", "0.2", "--out", tmp],
            check=True, capture_output=True, timeout=600,
        )
        command = [str(cli), "replay", "--graph", str(GRAPH), "--jobs", str(jobs),
                   "--format", "json", tmp]

        def run_cli():
            done = subprocess.run(command, capture_output=True, timeout=600)
            assert done.returncode in (0, 1), done.stderr

        def run_python():
            reports, summary = pg.replay_corpus(GRAPH, tmp, jobs=jobs)
            assert summary.runs == runs

        # Interleaved, so that both see the same machine load.
        cli_times, py_times = [], []
        run_cli(), run_python()  # warm the page cache and the process
        for _ in range(repeat):
            cli_times += timed(run_cli, 1)
            py_times += timed(run_python, 1)
    cli_median, py_median = statistics.median(cli_times), statistics.median(py_times)
    ratio = cli_median / py_median  # throughput of Python over throughput of the CLI
    print(f"replay of {runs} traces, --jobs {jobs}, median of {repeat}:")
    print(f"  primgraph replay (CLI)        {cli_median * 1e3:9.1f} ms  {runs / cli_median:9.0f} runs/s")
    print(f"  primgraph.replay_corpus (py)  {py_median * 1e3:9.1f} ms  {runs / py_median:9.0f} runs/s")
    print(f"  throughput ratio python / CLI = {ratio:.2f}  (target >= 0.90)")
    return ratio >= 0.9


def bench_validate(repeat: int) -> bool:
    text = GRAPH.read_text()
    name = "fix-failing-test.graph.json"
    assert pg.validate(text=text, file=name).ok
    calls = 2000
    per_call = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(calls):
            pg.validate(text=text, file=name)
        per_call.append((time.perf_counter() - start) / calls)
    python_s = statistics.median(per_call)
    print(f"validate one example graph (fix-failing-test), median of {repeat} x {calls} calls:")
    print(f"  primgraph.validate(text=...)  {python_s * 1e6:9.1f} us")
    if not CRITERION.exists():
        print(f"  no criterion baseline at {CRITERION}: run cargo bench --bench embed first")
        return False
    rust_s = json.loads(CRITERION.read_text())["median"]["point_estimate"] / 1e9
    ratio = python_s / rust_s
    print(f"  validate_str (criterion)      {rust_s * 1e6:9.1f} us")
    print(f"  ratio python / Rust = {ratio:.2f}  (target <= 1.50)")
    return ratio <= 1.5


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    ok = bench_replay(cli_binary(), args.runs, args.jobs, args.repeat)
    ok = bench_validate(args.repeat) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
