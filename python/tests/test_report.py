"""primgraph.report (SPEC §11 from Python) writes the same page as `primgraph report`, refuses
bad arguments with the exception that names them, and `Summary._repr_html_` gives a notebook an
escaped HTML fragment of the summary."""

import html
import json
import re
import shutil
import subprocess

import pytest

import primgraph as pg
from conftest import FIX_GRAPH, GRAPHS, REPO, RUNS, RUNS_GRAPH, run_cli

V2_GRAPH = GRAPHS / "fix-failing-test-v2.graph.json"
MARKUP = '"><script>alert(1)</script>'


def simulate(cli, graph, out, runs, seed):
    run_cli(
        cli, "simulate", str(graph), "--runs", str(runs), "--seed", str(seed), "--faults", "0.3",
        "--out", str(out), check_codes=(0,),
    )
    return out


@pytest.fixture(scope="module")
def two_versions(cli, tmp_path_factory):
    base = tmp_path_factory.mktemp("report")
    v1 = simulate(cli, FIX_GRAPH, base / "v1", 60, 3)
    v2 = simulate(cli, V2_GRAPH, base / "v2", 60, 4)
    return base, v1, v2


def inline_data(page: str) -> dict:
    start = page.index('<script type="application/json" id="pg-data">')
    start = page.index(">", start) + 1
    return json.loads(page[start : page.index("</script>", start)])


def test_the_page_is_the_one_the_command_line_writes(cli, two_versions):
    base, v1, v2 = two_versions
    from_cli, from_python = base / "cli.html", base / "python.html"
    done = subprocess.run(
        [str(cli), "report", "--graph", str(V2_GRAPH), str(v2), "--baseline-graph",
         str(FIX_GRAPH), "--baseline", str(v1), "--jobs", "2", "--out", str(from_cli)],
        capture_output=True, text=True, timeout=600, cwd=REPO,
    )
    written = pg.report(
        str(V2_GRAPH), v2, out=from_python, baseline_graph=str(FIX_GRAPH), baseline=[v1], jobs=2
    )
    assert from_python.read_bytes() == from_cli.read_bytes()
    # The counts it returns are the replay's, and the exit code of the CLI follows them.
    _, summary = pg.replay_corpus(V2_GRAPH, v2, jobs=2)
    assert written == {
        "path": str(from_python),
        "runs": summary.runs,
        "unfaithful": summary.runs - summary.by_verdict.get("faithful", 0),
    }
    assert done.returncode == (1 if written["unfaithful"] else 0), done.stderr
    # And it is the report: every node of the graph, the baseline's comparison.
    page = from_python.read_text()
    nodes = [n["id"] for n in json.loads(V2_GRAPH.read_text())["nodes"]]
    assert [n["id"] for n in inline_data(page)["nodes"]] == nodes
    assert re.findall(r'<g class="node[^"]*" data-node="([^"]*)" data-index="\d+"', page) == nodes
    assert 'id="comparison"' in page


def test_markup_in_a_run_is_escaped(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    with pg.TraceWriter.create(
        runs / "hostile.trace.jsonl", graph=RUNS_GRAPH, run=MARKUP, input={"task": MARKUP}
    ) as w:
        w.step("read_task", input={}, output={"x": MARKUP}, primitive="intake.parse_issue")
        w.end("failure")
    out = tmp_path / "page.html"
    written = pg.report(RUNS_GRAPH, runs, out=out)
    assert written["runs"] == 1 and written["unfaithful"] == 1
    page = out.read_text()
    assert "<script>alert(1)" not in page
    assert page.count("<script") == 2  # the inline JSON and the page's own script
    # The run is there, escaped where it stands: its ID beside its first divergence.
    assert "run <code>" + html.escape(MARKUP, quote=True) + "</code>" in page


def test_bad_arguments_name_themselves(tmp_path, two_versions):
    _, v1, _ = two_versions
    out = tmp_path / "page.html"
    with pytest.raises(ValueError, match="`confidence`"):
        pg.report(FIX_GRAPH, v1, out=out, confidence=1.0)
    with pytest.raises(TypeError, match="baseline_graph"):
        pg.report(FIX_GRAPH, v1, out=out, baseline=v1)
    with pytest.raises(TypeError, match="`runs`"):
        pg.report(FIX_GRAPH, 3, out=out)
    with pytest.raises(ValueError, match="`jobs`"):
        pg.report(FIX_GRAPH, v1, out=out, jobs=0)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(pg.InputError, match="no \\*.trace.jsonl under") as info:
        pg.report(FIX_GRAPH, empty, out=out)
    assert info.value.file == str(empty), info.value
    # A runs folder, a baseline folder or a graph that is not there: `file` names it.
    absent = tmp_path / "absent"
    with pytest.raises(pg.InputError) as info:
        pg.report(FIX_GRAPH, absent, out=out)
    assert info.value.file == str(absent), info.value
    with pytest.raises(pg.InputError) as info:
        pg.report(FIX_GRAPH, v1, out=out, baseline_graph=FIX_GRAPH, baseline=absent)
    assert info.value.file == str(absent), info.value
    with pytest.raises(pg.InputError) as info:
        pg.report(tmp_path / "no.graph.json", v1, out=out)
    assert info.value.file == str(tmp_path / "no.graph.json"), info.value
    with pytest.raises(pg.InputError, match="cannot write"):
        pg.report(FIX_GRAPH, v1, out=tmp_path / "no-such-dir" / "page.html")
    broken = tmp_path / "broken.graph.json"
    broken.write_text('{"graph": "x"')
    with pytest.raises(pg.GraphError):
        pg.report(broken, v1, out=out)
    with pytest.raises(pg.GraphError):
        pg.report(FIX_GRAPH, v1, out=out, baseline_graph=broken, baseline=v1)
    assert not out.exists()


def test_a_corpus_of_malformed_runs_still_gets_a_page(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    for i in range(5):
        (runs / f"bad{i}.trace.jsonl").write_bytes(b"not json at all\n" * (i + 1))
    out = tmp_path / "page.html"
    assert pg.report(RUNS_GRAPH, runs, out=out) == {"path": str(out), "runs": 5, "unfaithful": 5}
    data = inline_data(out.read_text())
    assert len(data["nodes"]) == len(json.loads(RUNS_GRAPH.read_text())["nodes"])


def test_repr_html_of_a_summary(two_versions):
    _, v1, _ = two_versions
    _, summary = pg.replay_corpus(FIX_GRAPH, v1, jobs=2)
    fragment = summary._repr_html_()
    assert fragment.startswith('<div class="pg-report">') and fragment.endswith("</div>")
    assert "<html" not in fragment and "<script" not in fragment
    text = html.unescape(re.sub(r"<[^>]+>", " ", fragment))
    assert re.search(rf"\bruns\s+{summary.runs}\b", text), text[:2000]
    for verdict, k in summary.by_verdict.items():
        assert re.search(rf"\b{verdict}\s+{k}\b", text), (verdict, k)
    assert pg.Summary()._repr_html_().startswith('<div class="pg-report">')


def test_repr_html_escapes_what_a_corpus_recorded(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copy(RUNS / "faithful-loop.trace.jsonl", runs)
    with pg.TraceWriter.create(runs / "x.trace.jsonl", graph=RUNS_GRAPH, run="r", input={}) as w:
        w.step("read_task", input={}, error={"mode": MARKUP, "message": MARKUP})
        w.end("failure")
    _, summary = pg.replay_corpus(RUNS_GRAPH, runs)
    fragment = summary._repr_html_()
    assert "<script>alert" not in fragment
    assert html.escape(MARKUP, quote=True) in fragment
