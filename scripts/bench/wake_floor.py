"""What one timed sleep and wake-up per packet sent costs on this machine: the fewest
wake-ups a router's event loop can have while it sends each packet at its own time.

Method: a child process sleeps in epoll_pwait2 on an empty epoll set, WAKES times, each
time for one gap between packets at the rate given (the rate a router forwarded in
dumbbell_cpu's window), with the event loop's settings: SCHED_FIFO 50, 1 ns timer slack,
and idle CPUs polling (cpu_latency_us 0, held for the run as a dumbbell holds it). Its
CPU is the thread's run time in ns (/proc/thread-self/schedstat, exact where the tick
counts of /proc/<pid>/stat are sampled every 10 ms). From each wake-up's CPU the same
loop's cost with a zero timeout (no sleep, about 0.7 us a turn) is taken away, so what is
left is the sleep and the wake-up alone. Nothing is sent or received: a real router pays
more. Sends closer together than a wake-up's cost could share one, by spinning from one
to the next at a cost up to their gap; at 10 Mbit/s both ways a router's sends are mostly
a frame's time apart at the access or bottleneck rate (0.12-1.2 ms), so few can.
"""

import ctypes
import os
import statistics
import subprocess
import sys

from p4aqm.topology.cpu_latency import CpuLatencyLimit

WAKES = 10_000
LOOPS = 100_000  # of the zero-timeout loop, which takes under 1 us a turn
RUNS = 3
# The same cost inside a router, where other work shares its CPU, with today's defaults:
# epoll_pwait2's share (44.9 %) of p4ar1's event loop thread at 8.7 % of a core
# (docs/bench/2026-11-30-router-profile.txt), over its about 4,000 wake-ups/s (3,924-4,018
# in docs/bench/2026-11-30-idle-cpus-polling.txt).
IN_ROUTER_US_PER_WAKE = 0.449 * 0.087 / 4000 * 1e6
IN_ROUTER_SOURCE = "2026-11-30 profile"
REALTIME_PRIORITY = 50  # DumbbellSpec's default for the routers
PR_SET_TIMERSLACK = 29
TIMER_SLACK_NS = 1


class _Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


def _run_time_ns() -> int:
    with open("/proc/thread-self/schedstat") as schedstat:
        return int(schedstat.read().split()[0])


def _sleep_and_wake(gap_ns: int, wakes: int) -> float:
    """This thread's CPU ns per turn of a loop of timed sleeps in epoll."""
    # libc's epoll_pwait2 through ctypes: select.epoll rounds its timeout up to whole ms,
    # and the router's sleeps are a fraction of one.
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_TIMERSLACK, TIMER_SLACK_NS, 0, 0, 0)
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(REALTIME_PRIORITY))
    epfd = libc.epoll_create1(os.O_CLOEXEC)
    if epfd < 0:
        raise OSError(ctypes.get_errno(), "epoll_create1")
    events = (ctypes.c_uint8 * 12 * 4)()  # room for 4 struct epoll_event; none will come
    timeout = ctypes.byref(_Timespec(gap_ns // 1_000_000_000, gap_ns % 1_000_000_000))
    wait = libc.epoll_pwait2
    before = _run_time_ns()
    for _ in range(wakes):
        wait(epfd, events, 4, timeout, None)
    return (_run_time_ns() - before) / wakes


def _ns_per_turn(gap_ns: int, turns: int) -> float:
    # Its stderr passes through, so a refused SCHED_FIFO or epoll says why.
    out = subprocess.run(
        [sys.executable, __file__, str(gap_ns), str(turns)],
        stdout=subprocess.PIPE,
        text=True,
        check=True,
    )
    return float(out.stdout)


def us_per_wake(packets_per_s: float) -> list[float]:
    """RUNS measurements of a bare wake-up's CPU, in µs, at one wake-up per packet."""
    gap_ns = round(1e9 / packets_per_s)
    limit = CpuLatencyLimit(0)
    limit.hold()
    try:
        runs = []
        for _ in range(RUNS):
            turn_ns = _ns_per_turn(gap_ns, WAKES) - _ns_per_turn(0, LOOPS)
            runs.append(turn_ns / 1e3)
        return runs
    finally:
        limit.release()


def report(packets_per_s: float, target_core_share: float) -> list[str]:
    runs = us_per_wake(packets_per_s)
    floor = packets_per_s * statistics.median(runs) / 1e6
    seconds = WAKES / packets_per_s
    return [
        "  one timed wake-up per packet sent, the fewest a router that sends each packet at"
        f" its own time can have: a bare one costs {', '.join(f'{r:.1f}' for r in runs)} us"
        f" of CPU here, alone ({RUNS} runs of {seconds:.0f} s; epoll_pwait2, SCHED_FIFO"
        f" {REALTIME_PRIORITY}, 1 ns timer slack, idle CPUs polling); at"
        f" {packets_per_s / 1e3:.2f} kpps that is {floor:.1%} of a core (target"
        f" {target_core_share:.0%}) before any packet is read, run or sent. Inside a router"
        f" perf put {IN_ROUTER_US_PER_WAKE:.1f} us on each sleep and wake-up ({IN_ROUTER_SOURCE}):"
        f" {packets_per_s * IN_ROUTER_US_PER_WAKE / 1e6:.1%} of a core at this rate",
    ]


if __name__ == "__main__":
    print(_sleep_and_wake(int(sys.argv[1]), int(sys.argv[2])))
