"""The dumbbell's bring-up time, and each router's CPU with 9 TCP flows filling the
10 Mbit/s bottleneck both ways.

Method:
- bring-up: the default DumbbellSpec (l3_forward, nine RTT groups) brought up and torn
  down BRINGUPS times; the time from `Dumbbell.__enter__` to its return (routers started,
  P4Runtime answering, configs applied, hosts configured). Target: under 15 s.
- router CPU: the default dumbbell; one cubic iperf3 flow per (client, server) pair from
  client to server and one from server to client (iperf3 -R), 18 in all, and each
  router's in-switch queue monitor sampling its bottleneck port (no AQM there) every
  MONITOR_PERIOD_S into a temporary Parquet file, as an experiment runs it. After
  WARMUP_S, for MEASURE_S: each router's CPU seconds per second (utime + stime of all
  its threads, /proc/<pid>/task/*/stat) as % of a core, and per thread: its user and
  kernel shares, wake-ups per second (voluntary context switches), and CPU per wake-up.
  The kernel share holds the system calls and, since a veth delivers to its peer in the
  sender's thread, the hosts' stacks receiving what the router sent. Target: at most 3 % of a
  core. Beside it, the figure measured by this method with commit 5a3a15b's switch
  (BEFORE_CORE_SHARE), before the switch's one event loop; and after all runs,
  wake_floor's CPU of one bare timed wake-up per packet sent, at the routers' median packet
  rate with the defaults.
- placement and idle CPUs: the routers are measured with DumbbellSpec's defaults (held
  to one CPU, routers_cpu "auto" at 10 Mbit/s; idle CPUs polling, cpu_latency_us 0), on
  one CPU with idle CPUs halting (cpu_latency_us None), and, as the baseline in the same
  run, left to the scheduler with idle CPUs halting (routers_cpu None), PLACEMENT_RUNS
  times each, interleaved.
- departure lateness: how late each router handed packets to their ports, past their
  scheduled departure or link landing, over the same window: two reads of
  `Router.emulation()` (gNMI /p4aqm/emulation/state) subtracted bucket by bucket, so
  p50 and p99 are histogram bucket bounds (within 1.6 %) and the max the bound of the
  highest bucket that grew; with the monitor's overruns and missed periods.
- baseline, measured in this run: the packets each router forwarded in the window (the
  rx_packets of its interfaces) times the per-packet cost of l3_forward at saturation
  from the forwarding benchmark (1/its per-busy-core rate at 1500 B): the CPU the
  packets themselves would take if nothing else cost anything.

The iperf3 processes and the hosts' TCP stacks run on the same 2 cores as the routers.
"""

import json
import statistics
import subprocess
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import wake_floor

from p4aqm.controller import EmulationFidelity
from p4aqm.topology import BOTTLENECK_PORT, LEFT, RIGHT, Dumbbell, DumbbellSpec
from p4aqm.topology.cpu_placement import RoutersCpu

BRINGUPS = 3
PLACEMENT_RUNS = 2
WARMUP_S = 10
MEASURE_S = 20
TICKS_PER_S = 100
MONITOR_PERIOD_S = 0.003
TARGET_CORE_SHARE = 0.03
# Each router's % of a core by this method (the monitor at 3 ms included) with the switch
# of commit 5a3a15b (packet and scheduler threads): the median of three runs on
# 2026-11-29 on the lab's 2-core VM, shared with another engineer's test runs (load
# average 0.4 to 1.0): p4ar1 13.2, 13.6 and 11.9 %, p4ar2 13.2, 12.3 and 11.9 %.
BEFORE_CORE_SHARE = {"p4ar1": 0.132, "p4ar2": 0.123}
# Its departure lateness, measured with the histogram alone added (commit 77e6fee) in two
# runs at load average 0.6 to 0.8: p50 71-73 us (the default 50 us timer slack), p99
# 164-174 us, max 1.2-2.0 ms.


def _thread_stats(pid: int) -> dict[str, tuple[float, float, int]]:
    """Per thread name: (user CPU seconds, kernel CPU seconds, voluntary context
    switches), summed over threads of that name."""
    stats: dict[str, tuple[float, float, int]] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        stat = (task / "stat").read_text()
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat.rsplit(")", 1)[1].split()
        user_s, kernel_s = int(fields[11]) / TICKS_PER_S, int(fields[12]) / TICKS_PER_S
        status = (task / "status").read_text()
        switches = int(status.split("voluntary_ctxt_switches:")[1].split()[0])
        old = stats.get(name, (0.0, 0.0, 0))
        stats[name] = (old[0] + user_s, old[1] + kernel_s, old[2] + switches)
    return stats


def _rx_packets(interfaces: list[str]) -> int:
    return sum(
        int(Path(f"/sys/class/net/{name}/statistics/rx_packets").read_text()) for name in interfaces
    )


@dataclass
class RouterCpu:
    name: str
    core_share: float
    packets_per_s: float
    # name -> (core share, its user part, wake-ups per s)
    threads: dict[str, tuple[float, float, float]]
    lateness: EmulationFidelity  # over the measured window


@dataclass
class _Snapshot:
    """A router's counters at one time."""

    threads: dict[str, tuple[float, float, int]]
    rx_packets: int
    fidelity: EmulationFidelity


def _snapshots(net: Dumbbell) -> dict[str, _Snapshot]:
    routers = net.manifest["routers"]
    return {
        name: _Snapshot(
            _thread_stats(r["pid"]),
            _rx_packets(list(r["interfaces"].values())),
            net.router(side).emulation(),
        )
        for (name, r), side in zip(routers.items(), (LEFT, RIGHT), strict=True)
    }


def _router_cpu(name: str, before: _Snapshot, after: _Snapshot, elapsed_s: float) -> RouterCpu:
    t0, t1 = before.threads, after.threads
    threads = {
        thread: (
            (t1[thread][0] + t1[thread][1] - t0[thread][0] - t0[thread][1]) / elapsed_s,
            (t1[thread][0] - t0[thread][0]) / elapsed_s,
            (t1[thread][2] - t0[thread][2]) / elapsed_s,
        )
        for thread in t1
        if thread in t0
    }
    total = sum(share for share, _, _ in threads.values())
    packets_per_s = (after.rx_packets - before.rx_packets) / elapsed_s
    return RouterCpu(name, total, packets_per_s, threads, after.fidelity.since(before.fidelity))


def bringup_seconds() -> list[float]:
    times = []
    for _ in range(BRINGUPS):
        start = time.monotonic()
        with Dumbbell(DumbbellSpec()):
            times.append(time.monotonic() - start)
    return times


def _start_flows(
    net: Dumbbell,
) -> tuple[list[subprocess.Popen], list[tuple[bool, subprocess.Popen]]]:
    """The iperf3 servers, and the clients with whether each is reversed (-R)."""
    pairs = [(c, s) for c in net.clients() for s in net.servers()]
    servers = []
    for k, (_, server) in enumerate(pairs):
        for reverse in (False, True):
            port = 5301 + 2 * k + reverse
            server_cmd = ["iperf3", "-s", "-1", "-p", str(port)]
            servers.append(net.host(server).popen(server_cmd, stdout=subprocess.DEVNULL))
    time.sleep(0.5)
    clients = []
    for k, (client, server) in enumerate(pairs):
        for reverse in (False, True):
            command = ["iperf3", "-c", net.ip(server), "-p", str(5301 + 2 * k + reverse)]
            command += ["-t", str(WARMUP_S + MEASURE_S + 1), "-C", "cubic", "-J"]
            command += ["-R"] if reverse else []
            clients.append(
                (reverse, net.host(client).popen(command, stdout=subprocess.PIPE, text=True))
            )
    return servers, clients


def _start_monitors(net: Dumbbell, stack: ExitStack, out_dir: Path) -> None:
    """Each router's queue monitor on its bottleneck port, as an experiment starts it."""
    for side in (LEFT, RIGHT):
        recording = net.router(side).monitor(
            MONITOR_PERIOD_S, {BOTTLENECK_PORT: []}, out=out_dir / f"monitor-{side}.parquet"
        )
        stack.enter_context(recording)


def router_cpu(
    routers_cpu: RoutersCpu = "auto", cpu_latency_us: int | None = 0
) -> tuple[list[RouterCpu], float, float]:
    """Each router's CPU, and the Mbit/s delivered client->server and server->client."""
    spec = DumbbellSpec(routers_cpu=routers_cpu, cpu_latency_us=cpu_latency_us)
    with (
        tempfile.TemporaryDirectory(prefix="p4aqm-bench-") as out_dir,
        Dumbbell(spec) as net,
        ExitStack() as monitors,
    ):
        _start_monitors(net, monitors, Path(out_dir))
        processes, clients = _start_flows(net)
        time.sleep(WARMUP_S)
        before = _snapshots(net)
        start = time.monotonic()
        time.sleep(MEASURE_S)
        after = _snapshots(net)
        elapsed_s = time.monotonic() - start
        delivered = [0.0, 0.0]
        for reverse, process in clients:
            report = json.loads(process.communicate()[0])
            delivered[reverse] += report["end"]["sum_received"]["bits_per_second"] / 1e6
        for process in processes:
            process.kill()
            process.wait()
    results = [_router_cpu(name, before[name], after[name], elapsed_s) for name in after]
    return results, delivered[0], delivered[1]


def report(per_packet_s: float) -> list[str]:
    times = bringup_seconds()
    lines = [
        f"  bring-up of the default dumbbell: median {statistics.median(times):.2f} s"
        f" (of {', '.join(f'{t:.2f}' for t in times)}; target under 15 s)"
    ]
    setups: dict[tuple[RoutersCpu, int | None], str] = {
        ("auto", 0): "both routers on one CPU, idle CPUs polling: the defaults",
        ("auto", None): "both routers on one CPU, idle CPUs halting",
        (None, None): "baseline: the scheduler's placement, idle CPUs halting",
    }
    default_pps: list[float] = []
    for run in range(PLACEMENT_RUNS):
        for (choice, latency_us), what in setups.items():
            routers, forward_mbps, reverse_mbps = router_cpu(choice, latency_us)
            lines.append(
                f"  routers_cpu {choice}, cpu_latency_us {latency_us} ({what}),"
                f" run {run + 1}: 9 cubic flows each way for"
                f" {MEASURE_S} s after {WARMUP_S} s: {forward_mbps:.2f} Mbit/s client->server,"
                f" {reverse_mbps:.2f} server->client"
            )
            for router in routers:
                lines += _router_lines(router, per_packet_s)
            if (choice, latency_us) == ("auto", 0):
                default_pps += [router.packets_per_s for router in routers]
    return lines + wake_floor.report(statistics.median(default_pps), TARGET_CORE_SHARE)


def _router_lines(router: RouterCpu, per_packet_s: float) -> list[str]:
    floor = router.packets_per_s * per_packet_s
    before = BEFORE_CORE_SHARE[router.name]
    lines = [
        f"  {router.name}: {router.core_share:5.1%} of a core (target at most"
        f" {TARGET_CORE_SHARE:.0%}; {before:.1%} as measured by commit 5a3a15b's switch);"
        f" {router.packets_per_s / 1e3:.2f} kpps received; baseline at the saturation"
        f" cost of {per_packet_s * 1e6:.1f} us/packet: {floor:.1%}"
    ]
    for thread, (share, user, wakes) in sorted(router.threads.items(), key=lambda t: -t[1][0]):
        if share >= 0.001:
            per_wake = f", {share / wakes * 1e6:5.1f} us CPU per wake-up" if wakes else ""
            lines.append(
                f"    thread {thread:<12} {share:5.1%} (user {user:4.1%}, kernel"
                f" {share - user:4.1%})  {wakes:7.0f} wake-ups/s{per_wake}"
            )
    late = router.lateness
    lines.append(
        f"    departure lateness over the window ({late.departures} packets):"
        f" p50 {late.lateness_p50_ns / 1e3:.1f} us, p99 {late.lateness_p99_ns / 1e3:.1f} us,"
        f" max {late.lateness_max_ns / 1e3:.1f} us (bucket bounds, within 1.6 %);"
        f" monitor overruns {late.monitor_overruns}, missed periods {late.monitor_missed}"
    )
    return lines
