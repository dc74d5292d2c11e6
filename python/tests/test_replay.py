"""primgraph.replay / replay_corpus / Replayer / Summary: the same figures as the CLI."""

import json
import pickle
import subprocess

import pytest

import primgraph as pg
from conftest import CORPUS_RUNS, FIX_GRAPH, GRAPHS, RUNS, RUNS_GRAPH


def test_each_recorded_run_gets_its_verdict():
    expected = {
        "faithful-success": "faithful",
        "faithful-loop": "faithful",
        "faithful-on-error": "faithful",
        "diverged": "diverged",
        "violated": "violated",
        "malformed": "malformed",
    }
    for name, verdict in expected.items():
        path = RUNS / f"{name}.trace.jsonl"
        report = pg.replay(RUNS_GRAPH, path)
        assert report.verdict == verdict
        assert report.faithful == (verdict == "faithful")
        assert report.trace == str(path)
        sidecar = RUNS / f"{name}.expected.json"
        if sidecar.exists():
            want = json.loads(sidecar.read_text())
            first = report.first_divergence
            assert (first["code"], first["seq"]) == (want["code"], want["seq"])
            assert any(d["code"] == want["code"] for d in report.diagnostics)
        else:
            assert report.first_divergence is None and report.diagnostics == []


def test_bytes_and_paths_give_the_same_report():
    path = RUNS / "diverged.trace.jsonl"
    from_path = pg.replay(RUNS_GRAPH, path).to_dict()
    from_bytes = pg.replay(RUNS_GRAPH, path.read_bytes()).to_dict()
    assert from_bytes["trace"] == "<bytes>"
    from_path.pop("trace"), from_bytes.pop("trace")
    assert from_path == from_bytes


def test_the_corpus_summary_equals_the_clis(corpus, cli_corpus_summary):
    reports, summary = pg.replay_corpus(FIX_GRAPH, corpus, jobs=2)
    assert len(reports) == CORPUS_RUNS
    assert [r.trace for r in reports] == sorted(str(p) for p in corpus.glob("*.trace.jsonl"))
    assert json.loads(summary.to_json()) == cli_corpus_summary
    assert summary.to_dict() == cli_corpus_summary
    assert summary.runs == CORPUS_RUNS and 0 < summary.unfaithful < CORPUS_RUNS
    # The monoid: halves merged in either order, and per-run summaries, give the same summary.
    half = len(reports) // 2
    files = sorted(corpus.glob("*.trace.jsonl"))
    _, first = pg.replay_corpus(FIX_GRAPH, files[:half], jobs=1)
    _, second = pg.replay_corpus(FIX_GRAPH, files[half:], jobs=2)
    assert first.merge(second) == summary == second.merge(first)
    folded = pg.Summary()
    for r in reports[:100]:
        folded = folded.merge(r.summary())
    _, hundred = pg.replay_corpus(FIX_GRAPH, files[:100])
    assert folded == hundred


def test_summary_json_and_pickle_round_trip():
    _, summary = pg.replay_corpus(RUNS_GRAPH, sorted(RUNS.glob("*.trace.jsonl")))
    back = pg.Summary.from_json(summary.to_json())
    assert back == summary and back.to_json() == summary.to_json()
    assert pickle.loads(pickle.dumps(summary)) == summary
    assert pg.Summary() == pg.Summary() and pg.Summary() != summary
    assert pg.Summary().merge(summary) == summary
    assert summary.by_verdict == {"diverged": 1, "faithful": 3, "malformed": 1, "violated": 1}


def test_summary_from_json_refuses_what_it_cannot_keep():
    _, summary = pg.replay_corpus(RUNS_GRAPH, RUNS)
    doc = summary.to_dict()
    with pytest.raises(pg.SummaryError) as caught:
        pg.Summary.from_json('{"runs": ')
    assert caught.value.line == 1 and caught.value.column is not None
    for broken in (
        dict(doc, runs=-1),
        dict(doc, extra=1),
        {k: v for k, v in doc.items() if k != "visits"},
        dict(doc, steps={"sum": 1, "histogram": []}),
        [],
    ):
        with pytest.raises(pg.SummaryError):
            pg.Summary.from_json(json.dumps(broken))
    with pytest.raises(TypeError, match="`text`"):
        pg.Summary.from_json({"runs": 1})
    with pytest.raises(TypeError, match="`other`"):
        summary.merge(doc)


def test_a_replayer_loads_once_and_replays_many():
    replayer = pg.Replayer(RUNS_GRAPH)
    assert replayer.digest.startswith("sha256:")
    names = ["a", "b"]
    datas = [(RUNS / "faithful-loop.trace.jsonl").read_bytes(), (RUNS / "violated.trace.jsonl").read_bytes()]
    reports, summary = replayer.replay_batch(names, datas)
    assert [r.verdict for r in reports] == ["faithful", "violated"]
    assert [r.trace for r in reports] == names
    assert summary.runs == 2
    same = pg.Replayer.from_bytes(RUNS_GRAPH.read_bytes(), name="g")
    assert same.replay(datas[0]).verdict == "faithful"
    with pytest.raises(ValueError, match="items"):
        replayer.replay_batch(["a"], datas)
    with pytest.raises(TypeError, match=r"datas\[1\]"):
        replayer.replay_batch(names, [datas[0], "text"])


def test_graph_and_path_errors_carry_their_location(tmp_path):
    bad = tmp_path / "bad.graph.json"
    bad.write_text('{\n  "graph": "x",\n  "nodes": [}\n')
    with pytest.raises(pg.GraphError) as caught:
        pg.replay(bad, RUNS / "faithful-loop.trace.jsonl")
    e = caught.value
    assert (e.code, e.file, e.line) == ("G001", str(bad), 3)
    with pytest.raises(pg.InputError) as caught:
        pg.replay(RUNS_GRAPH, tmp_path / "missing.trace.jsonl")
    assert caught.value.file == str(tmp_path / "missing.trace.jsonl")
    with pytest.raises(pg.InputError):
        pg.replay_corpus(RUNS_GRAPH, [RUNS, tmp_path / "missing"])
    with pytest.raises(ValueError, match="`jobs`"):
        pg.replay_corpus(RUNS_GRAPH, RUNS, jobs=0)
    with pytest.raises(ValueError, match="`jobs`"):
        pg.replay_corpus(RUNS_GRAPH, RUNS, jobs=True)
    with pytest.raises(TypeError, match="`paths`"):
        pg.replay_corpus(RUNS_GRAPH, {"a": 1})
    with pytest.raises(TypeError, match="`trace`"):
        pg.replay(RUNS_GRAPH, 42)


def test_collect_trace_files_expands_folders_sorted():
    files = pg.collect_trace_files(RUNS)
    # Folders are walked recursively: graphs/runs holds the v1/ and v2/ corpora too.
    assert files == sorted(str(p) for p in RUNS.rglob("*.trace.jsonl"))
    assert any("/v1/" in f for f in files) and any("/v2/" in f for f in files)


def test_summary_compare_equals_the_clis_compare(tmp_path, cli):
    """`Summary.compare` is the document `primgraph compare --format json` prints for the same
    two corpora (the CLI reads the summary files `replay --summary-out` wrote)."""
    sides = {
        "v1": (FIX_GRAPH, GRAPHS / "runs" / "v1"),
        "v2": (GRAPHS / "fix-failing-test-v2.graph.json", GRAPHS / "runs" / "v2"),
    }
    summaries, files = {}, {}
    for name, (graph, runs) in sides.items():
        _, summaries[name] = pg.replay_corpus(graph, sorted(runs.glob("*.trace.jsonl")))
        files[name] = tmp_path / f"{name}.summary.json"
        subprocess.run(
            [str(cli), "replay", "--graph", str(graph), str(runs), "--format", "json",
             "--summary-out", str(files[name])],
            capture_output=True,
        )
    printed = subprocess.run(
        [str(cli), "compare", str(files["v1"]), str(files["v2"]), "--format", "json",
         "--confidence", "0.9"],
        capture_output=True, text=True,
    )
    assert printed.returncode == 0, printed.stderr
    from_python = summaries["v1"].compare(summaries["v2"], confidence=0.9)
    from_cli = json.loads(printed.stdout)
    # A summary from `replay_corpus` knows its graph's name and digest, as a summary file does:
    # the whole document is the CLI's (SPEC §6.3's `"baseline": {"graph", "digest", "runs"}`).
    assert from_python == from_cli
    assert from_python["baseline"]["graph"] == "fix-failing-test"
    assert from_python["baseline"]["digest"] != from_python["candidate"]["digest"]
    assert from_python["confidence"] == 0.9 and from_python["metrics"]
    # Compared with itself nothing changed.
    same = summaries["v1"].compare(summaries["v1"])
    assert all(m["change"] in ("none", None) for m in same["metrics"])
    with pytest.raises(TypeError, match="`candidate`"):
        summaries["v1"].compare({"runs": 1})
    with pytest.raises(ValueError, match="`confidence`"):
        summaries["v1"].compare(summaries["v2"], confidence=1.5)


def test_a_replayed_summary_names_its_graph_through_merge_and_pickle():
    replayer = pg.Replayer(FIX_GRAPH)
    _, summary = replayer.replay_corpus(GRAPHS / "runs" / "v1")
    graph = {"name": "fix-failing-test", "digest": replayer.digest}
    assert summary.graph == graph
    # The empty summary agrees with every graph; a summary read from JSON names none.
    assert pg.Summary().merge(summary).graph == graph
    assert pg.Summary.from_json(summary.to_json()).graph is None
    assert pickle.loads(pickle.dumps(summary)).graph == graph
    _, other = pg.replay_corpus(GRAPHS / "fix-failing-test-v2.graph.json", GRAPHS / "runs" / "v2")
    mixed = summary.merge(other)
    assert mixed.graph is None and pickle.loads(pickle.dumps(mixed)).merge(summary).graph is None
    assert summary.compare(other)["baseline"]["digest"] == replayer.digest


def test_first_divergence_has_every_key_of_the_spec(tmp_path):
    """SPEC §4.2: `first_divergence` is `{"seq", "code", "expected", "actual"}`, `None` for no
    value (a D607's output breaks a schema: nothing was expected)."""
    runs = sorted((GRAPHS / "runs" / "v1").glob("*.trace.jsonl"))
    source = runs[0].read_text().splitlines()
    step = next(i for i, l in enumerate(source) if isinstance(json.loads(l).get("output"), dict))
    event = json.loads(source[step])
    event["output"]["unexpected_field"] = True
    source[step] = json.dumps(event, separators=(",", ":"))
    report = pg.replay(FIX_GRAPH, ("\n".join(source) + "\n").encode())
    first = report.first_divergence
    assert first is not None, report.diagnostics
    for key in ("seq", "code", "expected", "actual"):
        assert key in first, first
    assert first == json.loads(report.to_json())["first_divergence"]
