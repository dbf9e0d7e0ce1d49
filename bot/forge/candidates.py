"""A repository that discovery considered, and the verdict it reached."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path


class Verdict(StrEnum):
    """Whether a candidate is indexed.

    *Unresolved* means a fact could not be checked this run; it never means the candidate
    stopped qualifying.
    """

    ADMITTED = "admitted"
    REJECTED = "rejected"
    UNRESOLVED = "unresolved"


@dataclass(frozen=True, slots=True)
class Candidate:
    """One repository and the clause of the predicate that decided its verdict."""

    name: str
    origin: str  # "local" or "gitlab"
    location: str  # a path on disk, or the project's web URL
    verdict: Verdict
    clause: str
    detail: str
    path: Path | None = None  # the repository on disk, for local sources
    web_url: str | None = None

    @property
    def admitted(self) -> bool:
        """Whether the candidate is indexed."""
        return self.verdict is Verdict.ADMITTED
