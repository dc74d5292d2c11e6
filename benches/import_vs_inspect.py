"""Importing an Inspect log with primgraph against Inspect's own `read_eval_log` on the same log
(issue 26 "Speed": the goal is ≥ 10× faster). Run once, by hand, in the test environment
(`.ci/requirements-import.txt` installed, the wheel installed for `--python`):

    python benches/import_vs_inspect.py --samples 400 --tools 12 --cli target/release/primgraph

It writes a real `.eval` with `inspect_ai` itself (`mockllm/model`, scripted tool calls, a
`usage` on every output: no network), or takes `--log PATH`; then times, each `--repeat` times
(best of): `read_eval_log(PATH)` (the whole log, samples included, in this process), and
`primgraph import inspect PATH` (a fresh process: its start-up is counted), and with `--python`
`primgraph.import_runs`. Prints the times and the ratios. Nothing here is asserted: the figures
go in the issue note.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("INSPECT_DISABLE_TELEMETRY", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

REPO = pathlib.Path(__file__).resolve().parents[1]
GRAPH = REPO / "tests" / "fixtures" / "import" / "lookup.graph.json"
MAP = REPO / "tests" / "fixtures" / "import" / "lookup.map.toml"


def write_log(directory: pathlib.Path, samples: int, tools: int) -> pathlib.Path:
    from inspect_ai import Task, eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage
    from inspect_ai.scorer import includes
    from inspect_ai.solver import generate, use_tools
    from inspect_ai.tool import tool

    @tool
    def search_text():
        async def execute(query: str):
            """Search the workspace.

            Args:
                query: what to look for.
            """
            return json.dumps({"matches": [{"path": f"src/m{i}.rs", "line": i + 1, "text": query * 3} for i in range(8)]})

        return execute

    @tool
    def read_file():
        async def execute(path: str):
            """Read a file.

            Args:
                path: the file.
            """
            return json.dumps({"path": path, "text": ("fn f() { let x = 1; }\n" * 40) + path})

        return execute

    def script(input, tools_, tool_choice, config):
        calls = sum(1 for m in input if m.role == "tool")
        if calls < tools:
            name, args = ("search_text", {"query": f"item {calls}"}) if calls % 2 == 0 else ("read_file", {"path": f"src/m{calls}.rs"})
            out = ModelOutput.for_tool_call("mockllm/model", name, args)
        else:
            out = ModelOutput.from_content("mockllm/model", "src/lib.rs")
        out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return out

    task = Task(
        dataset=[Sample(id=i, input=f"where is item {i}?", target="src/lib.rs") for i in range(samples)],
        solver=[use_tools(search_text(), read_file()), generate()],
        scorer=includes(),
        name="bench",
    )
    logs = inspect_eval(
        task, model="mockllm/model", model_args={"custom_outputs": script},
        log_dir=str(directory), log_format="eval", display="none", max_samples=64,
    )
    return pathlib.Path(logs[0].location)


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", type=pathlib.Path)
    parser.add_argument("--samples", type=int, default=400)
    parser.add_argument("--tools", type=int, default=12)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cli", type=pathlib.Path, default=REPO / "target" / "release" / "primgraph")
    parser.add_argument("--python", action="store_true", help="time primgraph.import_runs too")
    args = parser.parse_args()

    from inspect_ai.log import read_eval_log

    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        log = args.log or write_log(tmp / "logs", args.samples, args.tools)
        size = log.stat().st_size
        print(f"log: {log} ({size / 1e6:.1f} MB)")

        def inspect_read():
            whole = read_eval_log(str(log))
            assert whole.samples, "the log has samples"

        def cli_import():
            done = subprocess.run(
                [str(args.cli), "import", "inspect", str(log), "--graph", str(GRAPH), "--map", str(MAP),
                 "--out", str(tmp / "cli"), "--format", "json"],
                capture_output=True, text=True,
            )
            assert done.returncode == 0, done.stderr + done.stdout[:2000]

        t_inspect = best(inspect_read, args.repeat)
        t_cli = best(cli_import, args.repeat)
        print(f"inspect_ai read_eval_log:  {t_inspect:8.3f} s")
        print(f"primgraph import (CLI):    {t_cli:8.3f} s   ratio {t_inspect / t_cli:6.1f}×")
        if args.python:
            import primgraph as pg

            def py_import():
                pg.import_runs("inspect", [log], graph=GRAPH, map=MAP, out=tmp / "py")

            t_py = best(py_import, args.repeat)
            print(f"primgraph.import_runs:     {t_py:8.3f} s   ratio {t_inspect / t_py:6.1f}×")


if __name__ == "__main__":
    sys.exit(main())
