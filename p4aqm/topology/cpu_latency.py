"""How long an idle CPU may take to wake while a dumbbell runs
(`DumbbellSpec.cpu_latency_us`), through Linux's CPU latency QoS (/dev/cpu_dma_latency).

An idle CPU of the lab's VM halts (its cpuidle driver is haltpoll with guest polling off),
and a halted virtual CPU runs again only when its host schedules it: a router's timer or
packet then waits for the host as well as for our own scheduler. While a process keeps
the device open with a limit of 0 µs, the idle governor keeps every idle CPU in its
polling state instead (tuned's latency profiles hold it the same way). The limit goes
when the file is closed, by `release()` or by the kernel when the process dies, so a
killed point leaves nothing behind. Idle time spent polling still counts as idle.

Measured on 2026-11-30 (Christiansen et al.'s quick point at 50 % load, 9 points with the
limit and 9 without, interleaved: 5 alone and 4 two at once each, nothing else running):
routers' p50 departure lateness 15-18 µs against 19-28 µs, p99 52-86 µs against 68-103
µs, and both routers' CPU 0.086 cores on average against 0.097.
"""

import os
import struct
from pathlib import Path

DEVICE = Path("/dev/cpu_dma_latency")
LIMIT = struct.Struct("=i")  # the device takes and gives a signed 32-bit count of µs
MAX_LIMIT_US = 2_000_000_000  # the kernel's default: no limit


class CpuLatencyError(ValueError):
    """The limit cannot be held."""


def check_limit(limit_us: int | None) -> None:
    if limit_us is None:
        return
    if isinstance(limit_us, bool) or not isinstance(limit_us, int):
        raise CpuLatencyError(f"cpu_latency_us: {limit_us!r} is not a whole number of µs or null")
    if not 0 <= limit_us <= MAX_LIMIT_US:
        raise CpuLatencyError(f"cpu_latency_us: {limit_us} is not in 0..{MAX_LIMIT_US}")


def current_limit_us() -> int:
    """The limit in force: the lowest any process holds, or MAX_LIMIT_US."""
    return LIMIT.unpack(DEVICE.read_bytes()[: LIMIT.size])[0]


class CpuLatencyLimit:
    """Holds the CPUs' wake-up latency at `limit_us` from `hold()` to `release()`;
    None holds nothing."""

    def __init__(self, limit_us: int | None) -> None:
        check_limit(limit_us)
        self.limit_us = limit_us
        self._file: int | None = None  # non-inheritable (PEP 446): no child keeps it

    def hold(self) -> None:
        if self.limit_us is None or self._file is not None:
            return
        try:
            fd = os.open(DEVICE, os.O_WRONLY)
        except OSError as exc:
            raise CpuLatencyError(
                f"cpu_latency_us: cannot open {DEVICE}: {exc.strerror} (needs root; give"
                " cpu_latency_us: null to leave the CPUs' idle states alone)"
            ) from None
        try:
            os.write(fd, LIMIT.pack(self.limit_us))
        except OSError as exc:
            os.close(fd)
            raise CpuLatencyError(f"cpu_latency_us: {DEVICE}: {exc.strerror}") from None
        self._file = fd

    def release(self) -> None:
        if self._file is not None:
            os.close(self._file)
            self._file = None
