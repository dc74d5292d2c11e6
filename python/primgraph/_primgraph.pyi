"""Type stubs of the native module; the public names are re-exported by :mod:`primgraph`."""

import os
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

PathLike = Union[str, "os.PathLike[str]"]
JSON = Any

ABI: str

class Registry:
    """A primitive registry: the embedded Kernel ABI 1.0.0, or a registry file linted on load."""

    @staticmethod
    def builtin() -> "Registry":
        """The embedded Kernel ABI 1.0.0 (191 primitives)."""
    @staticmethod
    def from_path(path: PathLike) -> "Registry":
        """Load and lint a registry file (RegistryError with the L5xx code and location)."""
    @staticmethod
    def from_bytes(data: bytes, origin: str = "<bytes>") -> "Registry":
        """Load and lint a registry from its bytes; ``origin`` names it in errors."""
    def lookup(self, key: str) -> Optional[Dict[str, JSON]]:
        """The contract of the primitive with this dotted ID or alias, or None."""
    @property
    def abi(self) -> str:
        """The registry's ABI version."""
    @property
    def origin(self) -> str:
        """``"<builtin>"``, the path, or the origin given."""
    def ids(self) -> List[str]:
        """Every primitive's dotted ID, in registry order."""
    def __len__(self) -> int: ...
    def __contains__(self, key: object) -> bool: ...
    def with_packs(
        self,
        paths: Sequence[PathLike],
        *,
        trust: Optional[Sequence[PathLike]] = None,
        lock: Optional[PathLike] = None,
        locked: bool = False,
    ) -> "Registry":
        """This registry with a pack path (SPEC §9.2): graphs that declare ``packs`` are
        validated and replayed against their effective registry, with the packs' rules;
        ``lookup``, ``ids`` and ``len`` see every pack on the path. ``trust``: ``KEY.pub``
        files every loaded pack must be signed by (P807). ``lock``: a ``primgraph.lock``
        (``primgraph pack lock``): exactly its versions load, from its paths, and a pack whose
        digest differs raises ``RegistryError`` with code P806 (never found implicitly beside
        a ``primgraph.toml``: name it). ``locked=True``: a lock is required, as ``--locked``."""
    def packs(self) -> List[Tuple[str, str, str]]:
        """The packs on the pack path: ``(name, version, digest)``."""

class ValidationReport:
    """The diagnostics of one graph document (SPEC §3.1), sorted."""

    @property
    def ok(self) -> bool:
        """True when there is no error."""
    @property
    def diagnostics(self) -> List[Dict[str, JSON]]:
        """Every diagnostic, as §3.1 dicts."""
    @property
    def errors(self) -> List[Dict[str, JSON]]:
        """The error-severity diagnostics."""
    @property
    def warnings(self) -> List[Dict[str, JSON]]:
        """The warning-severity diagnostics."""
    @property
    def file(self) -> str:
        """The file name reported."""
    @property
    def graph(self) -> Optional[str]:
        """The graph's name, when the document got that far."""
    def to_json(self) -> str:
        """The report as ``primgraph validate --format json`` prints it."""
    def __bool__(self) -> bool: ...

def validate(
    path: Optional[PathLike] = None,
    *,
    text: Union[str, bytes, None] = None,
    registry: Optional[Registry] = None,
    file: Optional[str] = None,
) -> ValidationReport:
    """Validate one graph, from a path or from ``text``."""

def expand(
    path: PathLike,
    *,
    packs: Optional[Sequence[PathLike]] = None,
    registry: Optional[Registry] = None,
) -> Dict[str, JSON]:
    """The expanded graph document: every fragment use replaced by the fragment's nodes (IDs
    ``use/node``), with ``packs`` as the pack path. Raises ``GraphError`` when a use does not
    expand (its first error's code and location)."""

class TraceWriter:
    """Records one run to a ``*.trace.jsonl`` file (SPEC §4.1)."""

    @staticmethod
    def create(
        path: PathLike,
        *,
        graph: PathLike,
        run: str,
        input: Optional[Dict[str, JSON]] = None,
        registry: Optional[Registry] = None,
        sign_key: Optional[PathLike] = None,
        overwrite: bool = False,
    ) -> "TraceWriter":
        """Start recording run ``run`` of ``graph`` to ``path``; writes the header.

        With ``sign_key`` (a private key file from ``primgraph keygen``) the end event is sealed.
        An existing ``path`` raises ``FileExistsError`` unless ``overwrite=True``; the graph,
        registry and key files in use are refused (``ValueError``) even then."""
    def step(
        self,
        node: str,
        *,
        input: Dict[str, JSON],
        output: Optional[Dict[str, JSON]] = None,
        error: Union[str, Dict[str, str], None] = None,
        outcome: Optional[str] = None,
        evidence: Optional[Iterable[Dict[str, str]]] = None,
        cost: Optional[Dict[str, Union[int, float]]] = None,
        primitive: Optional[str] = None,
    ) -> int:
        """Record one step; returns its ``seq``. Raises before writing anything if it is bad."""
    def end(self, status: str) -> int:
        """Record the end (``"success"`` or ``"failure"``) and close; returns its ``seq``."""
    def close(self) -> None:
        """Close; before ``end`` the trace has no end event (it replays malformed)."""
    def __enter__(self) -> "TraceWriter": ...
    def __exit__(self, exc_type: Any = None, exc: Any = None, tb: Any = None) -> bool: ...
    @property
    def path(self) -> str:
        """The trace file's path."""
    @property
    def seq(self) -> int:
        """The last ``seq`` written."""
    @property
    def closed(self) -> bool:
        """True once ended or closed."""
    @property
    def ended(self) -> bool:
        """True once ``end`` was recorded."""

class RunReport:
    """One run's report (SPEC §4.2)."""

    @property
    def verdict(self) -> str:
        """``faithful``, ``violated``, ``diverged`` or ``malformed``."""
    @property
    def faithful(self) -> bool:
        """True when the verdict is ``faithful``."""
    @property
    def end(self) -> Optional[str]:
        """``success``, ``failure``, or None without an end event."""
    @property
    def steps(self) -> int:
        """Steps replayed."""
    @property
    def run(self) -> Optional[str]:
        """The header's ``run``."""
    @property
    def trace(self) -> str:
        """The trace's name."""
    @property
    def first_divergence(self) -> Optional[Dict[str, JSON]]:
        """The first error (``seq``, ``code``, ``expected``, ``actual``, …), or None."""
    @property
    def diagnostics(self) -> List[Dict[str, JSON]]:
        """Every diagnostic of the run."""
    def to_json(self) -> str:
        """The run as in ``primgraph replay --format json``."""
    def to_dict(self) -> Dict[str, JSON]:
        """The parsed form of ``to_json``."""
    def summary(self) -> "Summary":
        """This run's summary."""

class Summary:
    """The corpus summary monoid (SPEC §4.3); ``Summary()`` is the empty one."""

    def __init__(self) -> None: ...
    def compare(self, candidate: "Summary", *, confidence: float = 0.95) -> Dict[str, Any]:
        """Compare with ``candidate`` (SPEC §6.3): the ``primgraph compare --format json`` document."""
    def merge(self, other: "Summary") -> "Summary":
        """A new summary: both added together, exactly."""
    def to_json(self) -> str:
        """Compact JSON text, as the ``summary`` of ``primgraph replay --format json``."""
    def _repr_html_(self) -> str:
        """The summary as escaped HTML tables and charts (Jupyter shows it)."""
    def to_dict(self) -> Dict[str, JSON]:
        """The parsed form of ``to_json``."""
    @staticmethod
    def from_json(text: Union[str, bytes]) -> "Summary":
        """Read a summary written by ``to_json`` (SummaryError otherwise)."""
    @property
    def runs(self) -> int: ...
    @property
    def unfaithful(self) -> int: ...
    @property
    def by_verdict(self) -> Dict[str, int]: ...
    @property
    def by_end(self) -> Dict[str, int]: ...
    @property
    def diagnostics_by_code(self) -> Dict[str, int]: ...
    @property
    def visits(self) -> Dict[str, int]: ...
    @property
    def steps(self) -> int: ...
    @property
    def spend_usd(self) -> float: ...
    @property
    def graph(self) -> Optional[Dict[str, str]]:
        """``{"name", "digest"}`` of the graph the runs were replayed against; None for the empty
        summary, one read with ``from_json``, or one merged from runs of different graphs."""
    @staticmethod
    def _restore(text: str, graph: Union[None, Tuple[str, str], str]) -> "Summary": ...
    def __eq__(self, other: object) -> bool:
        """Equal figures (the graph is not compared)."""
    def __reduce__(self) -> Tuple[Any, Tuple[str, Any]]: ...

class Replayer:
    """A graph loaded for replay against a registry, once."""

    def __init__(self, graph: PathLike, *, registry: Optional[Registry] = None) -> None: ...
    @staticmethod
    def from_bytes(
        data: bytes, *, name: str = "<graph>", registry: Optional[Registry] = None
    ) -> "Replayer":
        """Load a graph document given as bytes."""
    def replay(self, trace: Union[PathLike, bytes]) -> RunReport:
        """Replay one trace (a path or its bytes)."""
    def replay_corpus(
        self, paths: Union[PathLike, Iterable[PathLike]], *, jobs: Optional[int] = None
    ) -> Tuple[List[RunReport], Summary]:
        """Replay files and folders in parallel."""
    def replay_batch(self, names: List[str], datas: List[bytes]) -> Tuple[List[RunReport], Summary]:
        """Replay traces given as bytes, one after the other."""
    @property
    def graph_file(self) -> str: ...
    @property
    def digest(self) -> str: ...

def replay(graph: PathLike, trace: Union[PathLike, bytes], *, registry: Optional[Registry] = None) -> RunReport:
    """Replay one recorded run against ``graph``."""

def replay_corpus(
    graph: PathLike,
    paths: Union[PathLike, Iterable[PathLike]],
    *,
    registry: Optional[Registry] = None,
    jobs: Optional[int] = None,
) -> Tuple[List[RunReport], Summary]:
    """Replay trace files and folders against ``graph``: ``(reports, summary)``."""

def report(
    graph: PathLike,
    runs: Union[PathLike, Iterable[PathLike]],
    *,
    out: PathLike,
    baseline_graph: Optional[PathLike] = None,
    baseline: Optional[Union[PathLike, Iterable[PathLike]]] = None,
    registry: Optional[Registry] = None,
    confidence: float = 0.95,
    jobs: Optional[int] = None,
) -> Dict[str, Any]:
    """Write the ``primgraph report`` page (SPEC §11) to ``out``: ``{"path", "runs", "unfaithful"}``."""

def collect_trace_files(paths: Union[PathLike, Iterable[PathLike]]) -> List[str]:
    """The sorted trace files under these files and folders."""

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
    strict: bool = True,
) -> Dict[str, Any]:
    """Import runs recorded by another tool (``"inspect"``, ``"otel"``, ``"openai-agents"``) as
    traces in ``out``, one per run (SPEC §10), with the GIL released. Returns the report:
    ``runs``, ``diagnostics`` (I901–I904, each located by ``file``, ``entry``, ``sample``,
    ``pointer``, ``line``, ``column``) and ``summary``. With ``strict`` (the default) an I901
    error raises :class:`InputError` after the import, carrying ``entry``, ``sample``,
    ``pointer`` and the whole ``report``; the runs that could be read are written."""

