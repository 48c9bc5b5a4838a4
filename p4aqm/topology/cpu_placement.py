"""Which CPU a dumbbell's two routers run on (`DumbbellSpec.routers_cpu`).

Each packet one router sends across the bottleneck wakes the other router's event loop.
On different CPUs that wake-up is an inter-processor interrupt, which in a virtual
machine costs an exit to the hypervisor; on one CPU it is a local wake-up. Measured on
the lab's 2-core VM (2026-11-29, scripts/bench/dumbbell_cpu.py's load: 9 cubic flows each
way at 10 Mbit/s, 3 runs per placement, 2 on different CPUs, nothing else running): each
router used 8.9-10.4 % of a core with both on one CPU, 11.5-12.7 % where the scheduler put
them, and 11.3-12.6 % on different CPUs; p99 departure lateness 63-78 µs, 58-71 µs and
53-69 µs. At 100 Mbit/s the demo point's two routers took 1.02 cores together, more than
one CPU holds, so "auto" shares a CPU only up to SHARE_UP_TO_BPS at the bottleneck.
"""

import contextlib
import os
from typing import Literal

from p4aqm.topology import registry

# Routers cost about 0.1 core each at 10 Mbit/s and 0.5 at 100 Mbit/s (above): two at
# this rate stay well inside one CPU.
SHARE_UP_TO_BPS = 40_000_000

RoutersCpu = int | Literal["auto"] | None


class PlacementError(ValueError):
    """A CPU this process may not run on."""


def allowed_cpus() -> set[int]:
    return os.sched_getaffinity(0)


def routers_per_cpu() -> dict[int, int]:
    """How many switch processes of live topologies (the registry's) are held to each
    single CPU."""
    counts: dict[int, int] = {}
    for record in registry.records():
        for process in record.processes:
            if "switch" not in process.what or not process.alive():
                continue
            with contextlib.suppress(ProcessLookupError, PermissionError):
                cpus = os.sched_getaffinity(process.pid)
                if len(cpus) == 1:
                    (cpu,) = cpus
                    counts[cpu] = counts.get(cpu, 0) + 1
    return counts


def routers_cpu(choice: RoutersCpu, bottleneck_rate_bps: int) -> int | None:
    """The CPU both routers are held to, or None to leave them to the scheduler.

    "auto": above SHARE_UP_TO_BPS, or with one CPU allowed, None; else the allowed CPU
    that holds the fewest routers of the topologies now running (so concurrent points
    spread over the CPUs), the highest-numbered among equals (CPU 0 takes more of the
    machine's interrupts)."""
    allowed = allowed_cpus()
    if choice is None:
        return None
    if choice == "auto":
        if bottleneck_rate_bps > SHARE_UP_TO_BPS or len(allowed) < 2:
            return None
        counts = routers_per_cpu()
        return min(sorted(allowed, reverse=True), key=lambda cpu: counts.get(cpu, 0))
    check_cpu(choice)
    return choice


def check_cpu(cpu: int) -> None:
    """A PlacementError unless this process may run on `cpu`."""
    allowed = allowed_cpus()
    if cpu not in allowed:
        cpus = ", ".join(str(c) for c in sorted(allowed))
        raise PlacementError(f"routers_cpu: CPU {cpu} is not one this process may use ({cpus})")
