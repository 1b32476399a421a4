"""The one error type of the build.

A BuildError names where (file/field), what (the value), the rule it broke and how to fix it, so a
maintainer can act on one line. The CLI prints ``str(err)`` and exits 1.
"""

from __future__ import annotations


class BuildError(Exception):
    """A problem with the build's input that the user must fix.

    ``where`` is a file path (optionally ``path:line``) or a field name; ``problem`` says what is
    wrong, with the offending value; ``fix`` says what to do about it.
    """

    def __init__(self, where: str, problem: str, fix: str = "") -> None:
        self.where = where
        self.problem = problem
        self.fix = fix
        super().__init__(str(self))

    def __str__(self) -> str:
        msg = f"{self.where}: {self.problem}"
        return f"{msg} (fix: {self.fix})" if self.fix else msg


class BuildErrors(BuildError):
    """Several BuildErrors collected by a stage that reports every failure before giving up."""

    def __init__(self, errors: list[BuildError]) -> None:
        self.errors = list(errors)
        Exception.__init__(self, str(self))

    def __str__(self) -> str:
        lines = [str(e) for e in self.errors]
        return "\n".join(lines + [f"{len(lines)} error(s)"])
