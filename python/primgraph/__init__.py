"""primgraph from Python: validate agent graphs against the Kernel ABI registry, record runs,
replay them, and summarise corpora — the same Rust engine as the ``primgraph`` command line.

>>> import primgraph as pg
>>> pg.Registry.builtin().lookup("APPLY_PATCH")["id"]
'mut.apply_patch'

Importing this package never imports Ray: :mod:`primgraph.ray` does, when it is imported.
"""

from __future__ import annotations

from . import _primgraph
from ._errors import (
    Error,
    GraphError,
    InputError,
    RegistryError,
    SummaryError,
    TraceFormatError,
    WriterClosedError,
)
from ._primgraph import (
    ABI,
    Registry,
    Replayer,
    RunReport,
    Summary,
    TraceWriter,
    ValidationReport,
    collect_trace_files,
    import_runs,
    expand,
    replay,
    replay_corpus,
    report,
    validate,
)

__version__ = "0.1.0"

__all__ = [
    "ABI",
    "Error",
    "GraphError",
    "InputError",
    "Registry",
    "RegistryError",
    "Replayer",
    "RunReport",
    "Summary",
    "SummaryError",
    "TraceFormatError",
    "TraceWriter",
    "ValidationReport",
    "WriterClosedError",
    "collect_trace_files",
    "import_runs",
    "expand",
    "replay",
    "replay_corpus",
    "report",
    "validate",
]
