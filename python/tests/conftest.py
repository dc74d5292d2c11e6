"""Shared fixtures: the repository's paths, the `primgraph` binary, and a corpus of 2,000
simulated traces (written once per session by `primgraph simulate`)."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
GRAPHS = REPO / "graphs"
RUNS = GRAPHS / "runs"
RUNS_GRAPH = RUNS / "fix-failing-test.graph.json"
FIX_GRAPH = GRAPHS / "fix-failing-test.graph.json"
BUILTIN_REGISTRY = REPO / "registry" / "kernel-abi-1.0.0.json"
CORPUS_RUNS = 2000


def primgraph_binary() -> pathlib.Path:
    """The CLI: `PRIMGRAPH_BIN`, else the workspace's build (built here when missing)."""
    if os.environ.get("PRIMGRAPH_BIN"):
        return pathlib.Path(os.environ["PRIMGRAPH_BIN"])
    for profile in ("debug", "release"):
        candidate = REPO / "target" / profile / "primgraph"
        if candidate.exists():
            return candidate
    subprocess.run(
        ["cargo", "build", "--locked", "--bin", "primgraph"], cwd=REPO, check=True, timeout=1800
    )
    return REPO / "target" / "debug" / "primgraph"


@pytest.fixture(scope="session")
def cli() -> pathlib.Path:
    return primgraph_binary()


def run_cli(cli: pathlib.Path, *args: str, check_codes=(0, 1)) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [str(cli), *args], capture_output=True, text=True, timeout=600, cwd=REPO
    )
    assert done.returncode in check_codes, done.stderr
    return done


@pytest.fixture(scope="session")
def corpus(tmp_path_factory, cli) -> pathlib.Path:
    """2,000 simulated traces of graphs/fix-failing-test.graph.json, a fifth with seeded faults."""
    out = tmp_path_factory.mktemp("corpus")
    run_cli(
        cli,
        "simulate",
        str(FIX_GRAPH),
        "--runs",
        str(CORPUS_RUNS),
        "--seed",
        "14",
        "--faults",
        "0.2",
        "--out",
        str(out),
        check_codes=(0,),
    )
    assert len(list(out.glob("*.trace.jsonl"))) == CORPUS_RUNS
    return out


@pytest.fixture(scope="session")
def cli_corpus_summary(cli, corpus) -> dict:
    """The `summary` of `primgraph replay --format json` over the corpus, parsed."""
    done = run_cli(
        cli, "replay", "--graph", str(FIX_GRAPH), "--format", "json", "--jobs", "2", str(corpus)
    )
    return json.loads(done.stdout)["summary"]


def read_events(path: pathlib.Path) -> list:
    return [json.loads(line) for line in path.read_text().splitlines()]
