"""The exceptions of primgraph: one base, :class:`Error`, and a subclass per kind of failure.

Every exception carries where the problem is: ``code`` (the diagnostic code, such as ``L501`` or
``G001``, when the failure is a finding of the engine; else ``None``), ``message``, ``file``,
``line`` and ``column`` (1-based; ``None`` where they do not apply).
"""

from __future__ import annotations

from typing import Optional

__all__ = [
    "Error",
    "InputError",
    "RegistryError",
    "GraphError",
    "TraceFormatError",
    "WriterClosedError",
    "SummaryError",
]


class Error(Exception):
    """Base class of every primgraph exception.

    Attributes:
        code: the diagnostic code (``"L505"``, ``"G001"``, …) or ``None``.
        message: what went wrong, without the location.
        file: the file concerned, or ``None``.
        line: the 1-based line, or ``None``.
        column: the 1-based column, or ``None``.
    """

    def __init__(
        self,
        message: str,
        *,
        code: Optional[str] = None,
        file: Optional[str] = None,
        line: Optional[int] = None,
        column: Optional[int] = None,
    ) -> None:
        self.code = code
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        super().__init__(self._render())

    def _render(self) -> str:
        where = ""
        if self.file is not None:
            where = self.file
            if self.line is not None:
                where += f":{self.line}"
                if self.column is not None:
                    where += f":{self.column}"
            where += ": "
        code = f"{self.code}: " if self.code else ""
        return f"{where}{code}{self.message}"

    def __reduce__(self):  # keep the attributes across pickling (Ray ships exceptions)
        return (
            _rebuild,
            (type(self), self.message, self.code, self.file, self.line, self.column),
        )


def _rebuild(cls, message, code, file, line, column):
    return cls(message, code=code, file=file, line=line, column=column)


class InputError(Error):
    """A file that cannot be read or written, or a path that does not exist; also a path that
    names a FIFO, socket, device or folder where a file is read (refused before it is opened),
    or a file over its size limit (checked before it is read)."""


class RegistryError(Error):
    """A registry file that is not a registry, or breaks an invariant of SPEC §1.3 (``L5xx``)."""


class GraphError(Error):
    """A graph that does not load for replay or recording (any ``G`` code, or ``R101``)."""


class TraceFormatError(Error):
    """A step or end that would break the trace format; nothing was written."""


class WriterClosedError(TraceFormatError):
    """A :class:`~primgraph.TraceWriter` used after ``end``, ``close`` or an exception in its
    ``with`` block."""


class SummaryError(Error):
    """Text given to :meth:`Summary.from_json` that is not a summary of this version."""
