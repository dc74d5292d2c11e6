from ._errors import (
    Error as Error,
    GraphError as GraphError,
    InputError as InputError,
    RegistryError as RegistryError,
    SummaryError as SummaryError,
    TraceFormatError as TraceFormatError,
    WriterClosedError as WriterClosedError,
)
from ._primgraph import (
    ABI as ABI,
    Registry as Registry,
    Replayer as Replayer,
    RunReport as RunReport,
    Summary as Summary,
    TraceWriter as TraceWriter,
    ValidationReport as ValidationReport,
    collect_trace_files as collect_trace_files,
    import_runs as import_runs,
    replay as replay,
    replay_corpus as replay_corpus,
    validate as validate,
    expand as expand,
)

__version__: str
__all__: list[str]
