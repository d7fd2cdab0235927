"""The design ledger's file schema (pydantic): a chapter's record and the predictions in it.

Kept apart from ``state`` so that a notebook's first run on a first visit (nothing saved yet)
imports no pydantic: ``state`` imports this module only when there is a ledger to read or save.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .state import SCHEMA_VERSION, JSONScalar

__all__ = ["Attempt", "ChapterRecord", "LedgerData", "ValidationError"]


class Attempt(BaseModel):
    """One prediction: the first answer (kept forever) and the latest."""

    model_config = ConfigDict(extra="ignore")
    first: str
    first_correct: bool | None = None
    first_at: str = ""
    final: str
    final_correct: bool | None = None
    final_at: str = ""
    changes: int = 0


class ChapterRecord(BaseModel):
    model_config = ConfigDict(extra="ignore")
    design: dict[str, JSONScalar] = Field(default_factory=dict)
    answers: dict[str, str] = Field(default_factory=dict)
    attempts: dict[str, Attempt] = Field(default_factory=dict)
    widgets: dict[str, JSONScalar] = Field(default_factory=dict)
    text: dict[str, str] = Field(default_factory=dict)
    required: list[str] = Field(default_factory=list)
    updated: str = ""

    def _has(self, part: str) -> bool:
        """A required part is answered when its key is; ``"X_1|X_2"`` (the concept inventory: one
        item of a pair) when either is."""
        return any(self.answers.get(k) for k in part.split("|"))

    @property
    def completed(self) -> bool:
        """Computed from real answers: every required part has an answer."""
        return bool(self.required) and all(self._has(p) for p in self.required)

    @property
    def answered(self) -> int:
        return sum(1 for p in self.required if self._has(p))


class LedgerData(BaseModel):
    model_config = ConfigDict(extra="forbid")
    app: str = "mlsysim"
    schema_version: int = SCHEMA_VERSION
    track: str | None = None
    student: str = ""
    chapters: dict[str, ChapterRecord] = Field(default_factory=dict)
