"""The streaming slot guard: the only way a model's citation reaches the answer.

The model may cite a numbered source only by writing ``[[REF:n]]`` with 1 ≤ n ≤ the number of
sources in its prompt. The guard reads the model's output token by token. Any ``[`` opens a slot
candidate that is held back (never sent on) until it is either a complete, in-range slot — then
it becomes a ``("cite", n)`` item — or can no longer become one: then the stream is *cut* at that
token. The cut drops the candidate and everything after it, and the pipeline stops generating: a
model that writes malformed citations has left the format, and nothing it writes next is trusted.
"""

from __future__ import annotations

from dataclasses import dataclass

from citavial.worker.patterns import SLOT, SLOT_PREFIX

TEXT = "text"
CITE = "cite"


@dataclass(frozen=True)
class Cut:
    """Why and where the guard cut the stream. ``token`` counts feed() calls from 0."""

    reason: str      # "malformed_slot", "out_of_range_slot" or "unfinished_slot"
    token: int
    fragment: str    # the rejected candidate, for logs and tests (never sent to a client)

    def __repr__(self) -> str:
        return f"Cut({self.reason} at token {self.token}: {self.fragment!r})"


class SlotGuard:
    """Split model output into text and in-range citations; cut at the first bad slot."""

    def __init__(self, n_sources: int, primed: str = "") -> None:
        """``primed``: text the prompt already wrote for the model (a prefill such as
        "[[REF:"); it is judged like model output but counts as no token."""
        self.n_sources = n_sources
        self.cut: Cut | None = None
        self._candidate = ""
        self._tokens = 0
        if primed:
            self._primed = self.feed(primed)
            self._tokens = 0
        else:
            self._primed = []

    def primed_items(self) -> list[tuple[str, str | int]]:
        """Items the prefill itself produced (text before its open slot, if any)."""
        return list(self._primed)

    def feed(self, piece: str) -> list[tuple[str, str | int]]:
        """Consume one model token; return the items it makes safe, in order."""
        index = self._tokens
        self._tokens += 1
        if self.cut is not None:
            return []
        items: list[tuple[str, str | int]] = []
        text = []
        for ch in piece:
            if not self._candidate and ch != "[":
                text.append(ch)
                continue
            if text:
                items.append((TEXT, "".join(text)))
                text = []
            verdict = self._extend(ch, index)
            if verdict is not None:
                items.append((CITE, verdict))
            if self.cut is not None:
                return items
        if text:
            items.append((TEXT, "".join(text)))
        return items

    def finish(self) -> list[tuple[str, str | int]]:
        """End of generation: an open candidate is an unfinished slot, cut at the last token."""
        if self._candidate and self.cut is None:
            self.cut = Cut("unfinished_slot", max(self._tokens - 1, 0), self._candidate)
            self._candidate = ""
        return []

    def _extend(self, ch: str, index: int) -> int | None:
        candidate = self._candidate + ch
        if not SLOT_PREFIX.match(candidate):
            self.cut = Cut("malformed_slot", index, candidate)
            self._candidate = ""
            return None
        number = _number_so_far(candidate)
        if number is not None and number > self.n_sources:
            # Digits only grow a number, so it can never come back into range.
            self.cut = Cut("out_of_range_slot", index, candidate)
            self._candidate = ""
            return None
        done = SLOT.match(candidate)
        if done:
            self._candidate = ""
            return int(done.group(1))
        self._candidate = candidate
        return None


def _number_so_far(candidate: str) -> int | None:
    digits = candidate[len("[[REF:"):].rstrip("]")
    return int(digits) if digits.isdigit() else None
