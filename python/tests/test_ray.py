"""primgraph.ray.replay on a local Ray instance, and importing primgraph without Ray."""

import json
import os
import subprocess
import sys

import pytest

import primgraph as pg
from conftest import CORPUS_RUNS, FIX_GRAPH, RUNS, RUNS_GRAPH


def test_importing_primgraph_never_imports_ray():
    code = (
        "import sys, primgraph; "
        "primgraph.replay_corpus; primgraph.Summary(); "
        "assert 'ray' not in sys.modules, sorted(m for m in sys.modules if m.startswith('ray'))"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


@pytest.fixture(scope="module")
def local_ray():
    # Under CI a missing Ray is a failure, not a skip (`.ci/test` installs it).
    if os.environ.get("CI", "").strip() not in ("", "0", "false", "False", "FALSE"):
        import ray
    else:
        ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield ray
    ray.shutdown()


def test_ray_replay_equals_replay_corpus_byte_for_byte(local_ray, corpus, cli_corpus_summary):
    import primgraph.ray as pray

    dataset, summary = pray.replay(FIX_GRAPH, corpus, batch_size=128)
    _, local = pg.replay_corpus(FIX_GRAPH, corpus, jobs=2)
    assert summary.to_json() == local.to_json()
    assert json.loads(summary.to_json()) == cli_corpus_summary
    assert dataset.count() == CORPUS_RUNS
    rows = dataset.take_all()
    assert set(rows[0]) == {"trace", "run", "verdict", "end", "steps", "report"}
    by_trace = {r["trace"]: r for r in rows}
    assert sorted(by_trace) == pg.collect_trace_files(corpus)
    verdicts = {}
    for r in rows:
        verdicts[r["verdict"]] = verdicts.get(r["verdict"], 0) + 1
        assert json.loads(r["report"])["verdict"] == r["verdict"]
    assert verdicts == summary.by_verdict


def test_ray_replay_with_a_loaded_registry_and_bad_input(local_ray, tmp_path):
    import primgraph.ray as pray

    reg = pg.Registry.from_path(RUNS.parents[1] / "registry" / "kernel-abi-1.0.0.json")
    dataset, summary = pray.replay(RUNS_GRAPH, RUNS, registry=reg, batch_size=2)
    _, local = pg.replay_corpus(RUNS_GRAPH, RUNS)
    assert summary == local and dataset.count() == local.runs
    empty_dir = tmp_path / "empty"
    empty_dir.mkdir()
    dataset, summary = pray.replay(RUNS_GRAPH, empty_dir)
    assert summary == pg.Summary() and dataset.count() == 0
    with pytest.raises(ValueError, match="`batch_size`"):
        pray.replay(RUNS_GRAPH, RUNS, batch_size=0)
    with pytest.raises(TypeError, match="`registry`"):
        pray.replay(RUNS_GRAPH, RUNS, registry="builtin")
    with pytest.raises(pg.InputError):
        pray.replay(RUNS_GRAPH, tmp_path / "missing")
    bad = tmp_path / "bad.graph.json"
    bad.write_text("{")
    with pytest.raises(pg.GraphError) as caught:
        pray.replay(bad, RUNS)
    assert caught.value.file == str(bad) and caught.value.line == 1


def test_ray_replay_completes_on_a_one_cpu_cluster(tmp_path):
    # SPEC §7 names `primgraph.ray.replay(graph, paths)` with no CPU condition: on a one-CPU
    # cluster the workers must not hold the only CPU while a read stage waits for it. Its own
    # process (a fresh Ray instance of one CPU beside the module's); a hang fails on the timeout.
    if os.environ.get("CI", "").strip() in ("", "0", "false", "False", "FALSE"):
        pytest.importorskip("ray")
    code = (
        "import json, sys, ray, primgraph as pg, primgraph.ray as pray\n"
        "ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, configure_logging=False)\n"
        "dataset, summary = pray.replay(sys.argv[1], sys.argv[2], batch_size=2)\n"
        "_, local = pg.replay_corpus(sys.argv[1], sys.argv[2])\n"
        "assert summary.to_json() == local.to_json() and dataset.count() == local.runs\n"
        "print(json.dumps({'runs': dataset.count()}))\n"
        "ray.shutdown()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(RUNS_GRAPH), str(RUNS)],
        capture_output=True, text=True, timeout=240, cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1])["runs"] == pg.replay_corpus(RUNS_GRAPH, RUNS)[1].runs
