"""Replay a corpus on Ray (SPEC §7, "Distributed").

``primgraph.ray.import_runs(format, sources, graph=..., out=...)`` imports runs recorded by other
tools (SPEC §10) inside the workers, one source file per task, each into its own folder under
``out``; replay the result with ``primgraph.ray.replay(graph, out)`` like any traces.

``primgraph.ray.replay(graph, paths)`` lists the traces here, then replays each batch of paths
in a Ray Data worker that loads the registry and the graph once and reads the batch's files
(``map_batches`` with a class; no separate read stage, so a one-CPU cluster is enough), and
merges the per-batch summaries into one :class:`primgraph.Summary` — the same summary, byte
for byte after ``to_json()``, as :func:`primgraph.replay_corpus` and ``primgraph replay`` give
for the same files.

Importing :mod:`primgraph` never imports Ray; importing this module does. Install the extra:
``pip install "primgraph[ray]"``.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Tuple, Union

import ray  # noqa: F401  (this module is the one place primgraph imports Ray)
import ray.data

from . import _primgraph
from ._errors import InputError
from ._primgraph import Registry, Summary

if TYPE_CHECKING:  # pragma: no cover
    from ray.data import Dataset

__all__ = ["import_runs", "replay"]

PathLike = Union[str, "os.PathLike[str]"]

#: Columns of the returned Dataset: one row per run.
REPORT_COLUMNS = ("trace", "run", "verdict", "end", "steps", "report")
_SUMMARY_COLUMN = "batch_summary"


class _BatchReplayer:
    """A Ray Data worker: loads the graph (and registry) once, then replays batch after batch."""

    def __init__(self, graph_bytes: bytes, graph_name: str, registry: Optional[Registry]) -> None:
        self._replayer = _primgraph.Replayer.from_bytes(
            graph_bytes, name=graph_name, registry=registry
        )

    def __call__(self, batch: Dict[str, Any]) -> Dict[str, List[Any]]:
        names = [str(p) for p in batch["path"]]
        # The batch's files read and replayed here, one after the other, as `replay_corpus` does.
        reports, summary = self._replayer.replay_corpus(names, jobs=1)
        # The batch's summary rides on its first row; the driver merges them and drops the column.
        summaries: List[Optional[str]] = [None] * len(reports)
        if reports:
            summaries[0] = summary.to_json()
        return {
            "trace": names,
            "run": [r.run for r in reports],
            "verdict": [r.verdict for r in reports],
            "end": [r.end for r in reports],
            "steps": [r.steps for r in reports],
            "report": [r.to_json() for r in reports],
            _SUMMARY_COLUMN: summaries,
        }


def replay(
    graph: PathLike,
    paths: Union[PathLike, Iterable[PathLike]],
    registry: Optional[Registry] = None,
    batch_size: int = 64,
    concurrency: Optional[int] = None,
) -> Tuple["Dataset", Summary]:
    """Replay trace files and folders (recursively ``*.trace.jsonl``) against ``graph`` on Ray.

    Args:
        graph: the graph file; its bytes are shipped to the workers, so it need only exist here.
        paths: trace files and folders, expanded here as :func:`primgraph.replay_corpus` does.
            On a cluster of several machines they must be readable from every worker.
        registry: a :class:`primgraph.Registry` (default: the embedded Kernel ABI 1.0.0); it is
            pickled to the workers.
        batch_size: traces per batch (each batch is replayed on one worker, then summarised).
        concurrency: the number of workers (default: Ray's choice).

    Returns:
        ``(dataset, summary)``: a materialized Ray Dataset with one row per run (columns
        ``trace``, ``run``, ``verdict``, ``end``, ``steps`` and ``report``, the run's JSON
        report as text) and the merged :class:`primgraph.Summary`.

    Raises:
        primgraph.GraphError: the graph does not load (checked here, before any work is sent).
        primgraph.InputError: a path cannot be read.
        TypeError, ValueError: a bad argument.
    """
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"argument `batch_size` must be a positive int, not {batch_size!r}")
    if concurrency is not None and (
        isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1
    ):
        raise ValueError(f"argument `concurrency` must be a positive int or None, not {concurrency!r}")
    if registry is not None and not isinstance(registry, Registry):
        raise TypeError(
            f"argument `registry` must be a primgraph.Registry or None, not {type(registry).__name__}"
        )
    # Load the graph here first: a graph that does not load fails fast, with its location.
    checked = _primgraph.Replayer(graph, registry=registry)
    graph_name = checked.graph_file
    with open(os.fspath(graph), "rb") as f:
        graph_bytes = f.read()
    files = _primgraph.collect_trace_files(paths)
    if not files:
        return ray.data.from_items([]), Summary()
    map_args: Dict[str, Any] = {
        "fn_constructor_kwargs": {
            "graph_bytes": graph_bytes,
            "graph_name": graph_name,
            "registry": registry,
        },
        "batch_size": batch_size,
        "batch_format": "numpy",
        "num_cpus": 1,
    }
    if concurrency is not None:
        map_args["concurrency"] = concurrency
    # The paths are the dataset and each worker reads its batch's files: a read stage of its
    # own would need a CPU of its own, and on a one-CPU cluster the workers holding it would
    # wait for it forever.
    dataset = (
        ray.data.from_items([{"path": f} for f in files])
        .map_batches(_BatchReplayer, **map_args)
        .materialize()
    )
    summary = Summary()
    for row in dataset.select_columns([_SUMMARY_COLUMN]).iter_rows():
        part = row[_SUMMARY_COLUMN]
        if part is not None:
            summary = summary.merge(Summary.from_json(part))
    return dataset.drop_columns([_SUMMARY_COLUMN]), summary


#: Columns of the Dataset ``import_runs`` returns: one row per source file.
IMPORT_COLUMNS = ("source", "out", "runs", "steps", "errors", "report")

#: The files a folder is searched for, by format (as ``primgraph import`` searches).
_SUFFIXES = {"inspect": (".eval", ".json"), "otel": (".json", ".jsonl"), "openai-agents": (".json", ".jsonl")}


def _sources(format: str, sources: Union[PathLike, Iterable[PathLike]]) -> List[str]:
    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    files: List[str] = []
    for source in sources:
        path = os.fspath(source)
        if not os.path.isdir(path):
            if not os.path.exists(path):
                raise InputError(f"cannot read {path}: no such file or folder", file=path)
            files.append(path)
            continue
        found = []
        for root, _dirs, names in os.walk(path):
            found.extend(os.path.join(root, n) for n in names if n.endswith(_SUFFIXES[format]))
        files.extend(sorted(found))
    return files


class _BatchImporter:
    """A Ray Data worker: imports each source of a batch into its own folder under ``out``."""

    def __init__(self, format: str, graph: str, out: str, map: Optional[str], sign: Optional[str],
                 registry: Optional[Registry], max_entry_bytes: int) -> None:
        self._args = dict(graph=graph, map=map, sign=sign, registry=registry,
                          max_entry_bytes=max_entry_bytes, strict=False)
        self._format = format
        self._out = out

    def __call__(self, batch: Dict[str, Any]) -> Dict[str, List[Any]]:
        rows: Dict[str, List[Any]] = {c: [] for c in IMPORT_COLUMNS}
        for index, source in zip(batch["index"], batch["source"]):
            source = str(source)
            stem = os.path.basename(source).replace(os.sep, "_") or "source"
            folder = os.path.join(self._out, f"{int(index):06d}-{stem}")
            report = _primgraph.import_runs(self._format, [source], out=folder, **self._args)
            summary = report["summary"]
            rows["source"].append(source)
            rows["out"].append(folder)
            rows["runs"].append(summary["runs"])
            rows["steps"].append(summary["steps"])
            rows["errors"].append(summary["errors"])
            rows["report"].append(json.dumps(report))
        return rows


def import_runs(
    format: str,
    sources: Union[PathLike, Iterable[PathLike]],
    *,
    graph: PathLike,
    out: PathLike,
    map: Optional[PathLike] = None,
    sign: Optional[PathLike] = None,
    registry: Optional[Registry] = None,
    max_entry_bytes: int = 1 << 30,
    concurrency: Optional[int] = None,
) -> Tuple["Dataset", Dict[str, Any]]:
    """Import runs recorded by other tools on Ray: each source file in a worker, into
    ``out/NNNNNN-NAME/`` (its position among the sources, its file name), so that runs of
    different sources never collide.

    Args:
        format: ``"inspect"``, ``"otel"`` or ``"openai-agents"``.
        sources: files and folders (searched recursively, as ``primgraph import`` does), expanded
            here; on a cluster they, ``graph``, ``map`` and ``out`` must be reachable from every
            worker.
        graph, out, map, sign, registry, max_entry_bytes: as :func:`primgraph.import_runs`.
        concurrency: the number of workers (default: Ray's choice).

    Returns:
        ``(dataset, summary)``: a materialized Dataset with one row per source (``source``,
        ``out``, ``runs``, ``steps``, ``errors``, ``report``: the source's report as JSON text)
        and the summaries added up (``sources``, ``runs``, ``steps``, ``partial_steps``,
        ``unmapped``, ``errors``, ``warnings``, ``unlisted``). Findings do not raise: they are in
        the reports.

    Raises:
        primgraph.GraphError, primgraph.InputError: the graph, the mapping file or a source
            cannot be read (checked here, before any work is sent).
        TypeError, ValueError: a bad argument.
    """
    if format not in _SUFFIXES:
        raise ValueError(f"format: {format!r} is not one of \"inspect\", \"otel\", \"openai-agents\"")
    if concurrency is not None and (
        isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1
    ):
        raise ValueError(f"argument `concurrency` must be a positive int or None, not {concurrency!r}")
    files = _sources(format, sources)
    out = os.path.abspath(os.fspath(out))
    # The graph, mapping and key checked here: an import of no source loads them and fails fast.
    _primgraph.import_runs(format, [], graph=graph, out=out, map=map, sign=sign, registry=registry)
    summary: Dict[str, Any] = {"sources": 0, "runs": 0, "steps": 0, "partial_steps": 0,
                               "unmapped": {}, "errors": 0, "warnings": 0, "unlisted": {}}
    if not files:
        return ray.data.from_items([]), summary
    map_args: Dict[str, Any] = {
        "fn_constructor_kwargs": {
            "format": format,
            "graph": os.path.abspath(os.fspath(graph)),
            "out": out,
            "map": None if map is None else os.path.abspath(os.fspath(map)),
            "sign": None if sign is None else os.path.abspath(os.fspath(sign)),
            "registry": registry,
            "max_entry_bytes": max_entry_bytes,
        },
        "batch_size": 1,
        "batch_format": "numpy",
        "num_cpus": 1,
    }
    if concurrency is not None:
        map_args["concurrency"] = concurrency
    dataset = (
        ray.data.from_items([{"index": i, "source": f} for i, f in enumerate(files)])
        .map_batches(_BatchImporter, **map_args)
        .materialize()
    )
    for row in dataset.select_columns(["report"]).iter_rows():
        part = json.loads(row["report"])["summary"]
        for key, value in part.items():
            if isinstance(value, dict):
                # Counts by name (`unmapped`) or by code (`unlisted`), added name by name.
                added = summary.setdefault(key, {})
                for name, count in value.items():
                    added[name] = added.get(name, 0) + count
            else:
                summary[key] = summary.get(key, 0) + value
    return dataset, summary
