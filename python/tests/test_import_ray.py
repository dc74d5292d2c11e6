"""primgraph.ray.import_runs on a local Ray instance: runs recorded by other tools imported inside
the workers (one source per task, each into its own folder), then replayed on Ray like any
traces — the same runs and verdicts as a local `primgraph.import_runs`."""

import json
import os
import shutil

import pytest

import primgraph as pg
from conftest import REPO

FIXTURES = REPO / "tests" / "fixtures" / "import"
GRAPH = FIXTURES / "lookup.graph.json"
MAP = FIXTURES / "lookup.map.toml"


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


def test_ray_imports_in_the_workers_and_replays_the_result(local_ray, tmp_path):
    import primgraph.ray as pray

    sources = tmp_path / "logs"
    sources.mkdir()
    # The same log twice (the same sample IDs): each source has its own folder, nothing collides.
    for name in ("lookup-v1.eval", "lookup-v2.eval"):
        shutil.copy(FIXTURES / name, sources / name)
    shutil.copy(FIXTURES / "lookup-v1.eval", sources / "again.eval")
    (sources / "notes.txt").write_text("not a log")
    dataset, summary = pray.import_runs("inspect", sources, graph=GRAPH, map=MAP, out=tmp_path / "out")
    assert summary["sources"] == 3 and summary["runs"] == 12, summary
    assert summary["errors"] == 0 and summary["unmapped"] == {}, summary
    rows = sorted(dataset.take_all(), key=lambda r: r["source"])
    assert [os.path.basename(r["source"]) for r in rows] == ["again.eval", "lookup-v1.eval", "lookup-v2.eval"]
    assert all(r["runs"] == 4 and r["steps"] == 12 for r in rows), rows

    local = pg.import_runs("inspect", [FIXTURES / "lookup-v2.eval"], graph=GRAPH, map=MAP, out=tmp_path / "local")
    v2 = next(r for r in rows if r["source"].endswith("lookup-v2.eval"))
    assert json.loads(v2["report"])["summary"] == local["summary"]

    replayed, merged = pray.replay(GRAPH, tmp_path / "out")
    assert replayed.count() == 12
    verdicts = sorted(r["verdict"] for r in replayed.take_all())
    # v1 twice (faithful ×4 each), v2 (faithful 1, violated 3).
    assert verdicts == ["faithful"] * 9 + ["violated"] * 3, verdicts
    assert all(json.loads(r["report"])["provenance"] == "imported" for r in replayed.take_all())


def test_ray_import_checks_its_arguments_before_sending_work(local_ray, tmp_path):
    import primgraph.ray as pray

    with pytest.raises(ValueError, match="not one of"):
        pray.import_runs("langfuse", [], graph=GRAPH, out=tmp_path / "o")
    with pytest.raises(pg.InputError):
        pray.import_runs("inspect", [tmp_path / "absent.eval"], graph=GRAPH, out=tmp_path / "o")
    bad_map = tmp_path / "map.toml"
    bad_map.write_text('[tools]\nx = "nowhere"\n')
    with pytest.raises(pg.InputError) as info:
        pray.import_runs("inspect", [FIXTURES / "lookup-v1.eval"], graph=GRAPH, map=bad_map, out=tmp_path / "o")
    assert info.value.line == 2
    # A damaged source is a finding in its report, not an exception, and the others import.
    broken = tmp_path / "broken.eval"
    broken.write_bytes((FIXTURES / "lookup-v1.eval").read_bytes()[:4000])
    dataset, summary = pray.import_runs(
        "inspect", [broken, FIXTURES / "lookup-v2.eval"], graph=GRAPH, out=tmp_path / "o2"
    )
    assert summary["errors"] == 1 and summary["runs"] == 4, summary
