"""Exceptions that carry a one-line, user-facing message."""

from __future__ import annotations


class CpmodelsError(Exception):
    """Base class: an error whose message is meant for the user, not a traceback."""


class SpecError(CpmodelsError):
    """A spec file is missing, unreadable or invalid.

    The message names the file, the field path (and line when known) and what is wrong.
    A validation error also keeps, for those who word it otherwise, the field's ``path``
    (names and 0-based indexes), the validator's ``kind`` of error (``"too_short"``,
    ``"missing"``, ...) and its ``context`` (``{"min_length": 1}``); an error of several
    problems keeps each as one of its ``problems`` (one error is its own only problem).
    """

    def __init__(self, source: str, message: str, field: str | None = None,
                 line: int | None = None, *, path: tuple[str | int, ...] | None = None,
                 kind: str | None = None, context: dict[str, object] | None = None,
                 problems: tuple[SpecError, ...] = ()) -> None:
        self.source = source
        self.field = field
        self.line = line
        self.reason = message
        self.path = path
        self.kind = kind
        self.context = context or {}
        self.problems = problems or (self,)
        where = source
        if line is not None:
            where += f":{line}"
        if field:
            where += f": {field}"
        super().__init__(f"{where}: {message}")


class InputError(CpmodelsError):
    """A command-line argument (date, labels, size, target, ...) is invalid for the spec."""


class OptionError(InputError):
    """An option's value out of its range. The message names the option as the command line
    spells it (``--cell 0: ...``); ``rule`` says what the value must be, naming the option
    in words ("a cell must be 1 to 500 mm"), and ``value`` is the value given, as text."""

    def __init__(self, message: str, rule: str = "", value: str = "") -> None:
        super().__init__(message)
        self.rule, self.value = rule or message, value


class TooLargeError(CpmodelsError):
    """A problem would need more memory than the package allows; refused before any work."""


class TooManySets(InputError):
    """A design whose draws allow more piece sets than it may try (``sets`` against
    ``limit``), counted before any set is made."""

    def __init__(self, sets: int, limit: int) -> None:
        self.sets, self.limit = sets, limit
        super().__init__(f"the design asks for {sets:,} sets before the area check; the "
                         f"limit is {limit:,}")


class NotFound(CpmodelsError):
    """Something asked for by name or number does not exist (a spec, a solution index)."""


class OutOfTime(CpmodelsError, TimeoutError):
    """A search stopped before it finished: its time limit passed, or it was cancelled.

    The one way "out of time" comes back from a function that returns a value (a count, a
    tally, a solution stream, a verdict): every limit goes in as ``time_limit`` seconds and
    comes out as this. ``partial`` is what was finished before the stop, where there is
    something (a count of the branches done, the verdicts decided), else None. Results that
    are themselves an answer (a ``CoverResult``, a towers board) say ``"unknown"`` instead.
    """

    def __init__(self, message: str = "the time limit passed first",
                 partial: object = None) -> None:
        super().__init__(message)
        self.partial = partial
