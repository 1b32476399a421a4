"""The build's stage timer: wall and CPU seconds per stage, for the build line."""

from __future__ import annotations

import time


class StageClock:
    """Wall and CPU seconds of the build's consecutive stages, for its report line."""

    def __init__(self) -> None:
        self.start = (time.perf_counter(), time.process_time())
        self._last = self.start
        self.laps: dict[str, tuple[float, float]] = {}

    def lap(self, stage: str) -> None:
        now = (time.perf_counter(), time.process_time())
        self.laps[stage] = (now[0] - self._last[0], now[1] - self._last[1])
        self._last = now

    def summary(self) -> str:
        """``read 0.64 s, …, publish 0.17 s; total 2.1 s, CPU 1.9 s; CPU per stage: read
        0.60, …`` (wall seconds per stage, then the process's CPU seconds per stage)."""
        wall = ", ".join(f"{k} {w:.2f} s" for k, (w, _c) in self.laps.items())
        cpu = ", ".join(f"{k} {c:.2f}" for k, (_w, c) in self.laps.items())
        return (f"{wall}; total {self._last[0] - self.start[0]:.2f} s, "
                f"CPU {self._last[1] - self.start[1]:.2f} s; CPU per stage: {cpu}")
