"""Admission control: a per-client rate limit and one model at a time with a bounded queue."""

from __future__ import annotations

import math
import threading
import time
from typing import Callable


class RateLimiter:
    """A token bucket per client: ``per_minute`` requests, bursts up to ``burst``."""

    def __init__(self, per_minute: float, burst: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = per_minute / 60.0
        self.burst = burst
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}   # client → (tokens, last time)
        self._lock = threading.Lock()

    def check(self, client: str) -> float:
        """Take a token for ``client``: 0.0 if allowed, else seconds to wait (≥ 1, whole)."""
        if self.rate <= 0:
            return 0.0
        now = self.clock()
        with self._lock:
            tokens, last = self._buckets.get(client, (float(self.burst), now))
            tokens = min(self.burst, tokens + (now - last) * self.rate)
            if tokens >= 1.0:
                self._buckets[client] = (tokens - 1.0, now)
                if len(self._buckets) > 10_000:   # forget idle clients; memory stays bounded
                    self._forget(now)
                return 0.0
            self._buckets[client] = (tokens, now)
            return float(max(1, math.ceil((1.0 - tokens) / self.rate)))

    def _forget(self, now: float) -> None:
        full = [c for c, (t, last) in self._buckets.items()
                if t + (now - last) * self.rate >= self.burst]
        for c in full:
            del self._buckets[c]


class QueueFull(Exception):
    pass


class InferenceSlot:
    """One answer at a time; at most ``max_waiting`` more wait for it, the rest get QueueFull."""

    def __init__(self, max_waiting: int) -> None:
        self.max_waiting = max_waiting
        self._lock = threading.Lock()
        self._state = threading.Lock()
        self.waiting = 0
        self.active = 0

    def reserve(self) -> "Ticket":
        """Take a place in the queue now (raise QueueFull if there is none)."""
        with self._state:
            if self.waiting + self.active > self.max_waiting:
                raise QueueFull()
            self.waiting += 1
        return Ticket(self)


class Ticket:
    """A place in the queue; ``hold()`` waits for the model and keeps it until the block ends."""

    def __init__(self, slot: InferenceSlot) -> None:
        self.slot = slot
        self._released = False

    def hold(self):
        slot = self.slot
        slot._lock.acquire()
        with slot._state:
            slot.waiting -= 1
            slot.active += 1
        self._released = True
        return _Held(slot)

    def cancel(self) -> None:
        """Give the place back without ever holding the model (client gone, error)."""
        if not self._released:
            with self.slot._state:
                self.slot.waiting -= 1
            self._released = True


class _Held:
    def __init__(self, slot: InferenceSlot) -> None:
        self.slot = slot

    def __enter__(self) -> "_Held":
        return self

    def __exit__(self, *exc) -> None:
        with self.slot._state:
            self.slot.active -= 1
        self.slot._lock.release()
