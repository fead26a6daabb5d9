"""A background sampler: polls every GPU at a fixed interval into a bounded ring buffer.

Tag-based windows (``mark()`` / ``stats(since=...)``) follow nvitop's ResourceMetricCollector.
Without ``start()`` the sampler is driven by hand with ``sample_once()`` (tests, ``--once``).
"""

from __future__ import annotations

import collections
import threading
import time
from collections.abc import Callable, Sequence
from typing import Protocol

from tfgpu.model.samples import GpuSample, SampleStats
from tfgpu.monitor.stats import compute_stats
from tfgpu.nvml.client import NvmlClient
from tfgpu.nvml.sample import SampleReader

DEFAULT_INTERVAL_SECONDS = 0.1
DEFAULT_CAPACITY = 36_000  # one hour at 10 Hz per GPU


class Clock(Protocol):
    """Time source of the sampler; tests pass a FakeClock."""

    def monotonic(self) -> float:
        """Seconds, monotonic."""
        ...

    def sleep(self, seconds: float) -> None:
        """Wait."""
        ...


class SystemClock:
    """The real clock."""

    def monotonic(self) -> float:
        """time.monotonic()."""
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        """time.sleep()."""
        time.sleep(seconds)


class Sampler:
    """Polls ``gpu_indices`` every ``interval_seconds``; ``on_sample`` sees each sample (sinks)."""

    def __init__(
        self,
        client: NvmlClient,
        gpu_indices: Sequence[int],
        interval_seconds: float = DEFAULT_INTERVAL_SECONDS,
        clock: Clock | None = None,
        capacity: int = DEFAULT_CAPACITY,
        on_sample: Callable[[GpuSample], None] | None = None,
    ) -> None:
        if interval_seconds <= 0:
            raise ValueError("interval_seconds must be positive")
        self.reader = SampleReader(client)
        self.gpu_indices = tuple(gpu_indices)
        self.interval_seconds = interval_seconds
        self.clock = clock or SystemClock()
        self.on_sample = on_sample
        self._buffer: collections.deque[GpuSample] = collections.deque(maxlen=capacity * max(1, len(self.gpu_indices)))
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.cpu_seconds = 0.0
        """CPU time the sampling thread spent (thread_time), for the overhead benchmark."""
        self.errors: list[str] = []

    def sample_once(self) -> list[GpuSample]:
        """Read every GPU now and keep the samples."""
        now = self.clock.monotonic()
        events = self.reader.xid_events()
        samples = [self.reader.read(i, now, tuple(x for g, x in events if g == i)) for i in self.gpu_indices]
        with self._lock:
            self._buffer.extend(samples)
        if self.on_sample:
            for sample in samples:
                self.on_sample(sample)
        return samples

    def _run(self) -> None:
        start_cpu = time.thread_time()
        next_time = self.clock.monotonic()
        while not self._stop.is_set():
            try:
                self.sample_once()
            except Exception as exc:  # noqa: BLE001 - a sink or NVML failure must not kill training
                self.errors.append(f"{type(exc).__name__}: {exc}")
                if len(self.errors) > 10:
                    break
            self.cpu_seconds = time.thread_time() - start_cpu
            next_time += self.interval_seconds
            delay = next_time - self.clock.monotonic()
            if delay < 0:  # fell behind (a slow NVML call): do not burst to catch up
                next_time = self.clock.monotonic()
                delay = 0.0
            self._stop.wait(delay)
        self.cpu_seconds = time.thread_time() - start_cpu

    def start(self) -> None:
        """Start the daemon thread (idempotent)."""
        if self._thread and self._thread.is_alive():
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="tfgpu-sampler", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread and wait for it."""
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=5)

    def mark(self) -> float:
        """A tag for ``stats(since=...)``: now."""
        return self.clock.monotonic()

    def samples(
        self, since: float | None = None, index: int | None = None, until: float | None = None
    ) -> list[GpuSample]:
        """Kept samples, optionally from a mark on (up to another) and of one GPU."""
        with self._lock:
            data = list(self._buffer)
        return [
            s
            for s in data
            if (since is None or s.time_seconds >= since)
            and (until is None or s.time_seconds <= until)
            and (index is None or s.index == index)
        ]

    def first_busy(self) -> float | None:
        """Time of the first sample with any GPU activity: where a process's start-up ends."""
        return next((s.time_seconds for s in self.samples() if (s.utilization_percent or 0) > 0), None)

    def stats(self, since: float | None = None, until: float | None = None) -> list[SampleStats]:
        """Statistics per GPU over the samples since the mark (all samples without one), up to ``until``."""
        window = self.samples(since, until=until)
        return [compute_stats(i, [s for s in window if s.index == i]) for i in self.gpu_indices]
