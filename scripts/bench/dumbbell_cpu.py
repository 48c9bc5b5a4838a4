"""The dumbbell's bring-up time, and each router's CPU with 9 TCP flows filling the
10 Mbit/s bottleneck both ways.

Method:
- bring-up: the default DumbbellSpec (l3_forward, nine RTT groups) brought up and torn
  down BRINGUPS times; the time from `Dumbbell.__enter__` to its return (routers started,
  P4Runtime answering, configs applied, hosts configured). Target: under 15 s.
- router CPU: the default dumbbell; one cubic iperf3 flow per (client, server) pair from
  client to server and one from server to client (iperf3 -R), 18 in all. After WARMUP_S,
  for MEASURE_S: each router's CPU seconds per second (utime + stime of all its threads,
  /proc/<pid>/task/*/stat) as % of a core, and per thread: wake-ups per second
  (voluntary context switches), and CPU per wake-up. Target: under 5 % of a core.
- baseline, measured in this run: the packets each router forwarded in the window (the
  rx_packets of its interfaces) times the per-packet cost of l3_forward at saturation
  from the forwarding benchmark (1/its per-busy-core rate at 1500 B): the CPU the
  packets themselves would take if nothing else cost anything.

The iperf3 processes and the hosts' TCP stacks run on the same 2 cores as the routers.
"""

import json
import statistics
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from p4aqm.topology import Dumbbell, DumbbellSpec

BRINGUPS = 3
WARMUP_S = 10
MEASURE_S = 20
TICKS_PER_S = 100


def _thread_stats(pid: int) -> dict[str, tuple[float, int]]:
    """Per thread name: (CPU seconds, voluntary context switches), summed over threads."""
    stats: dict[str, tuple[float, int]] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        stat = (task / "stat").read_text()
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat.rsplit(")", 1)[1].split()
        cpu_s = (int(fields[11]) + int(fields[12])) / TICKS_PER_S
        status = (task / "status").read_text()
        switches = int(status.split("voluntary_ctxt_switches:")[1].split()[0])
        old = stats.get(name, (0.0, 0))
        stats[name] = (old[0] + cpu_s, old[1] + switches)
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
    threads: dict[str, tuple[float, float]]  # name -> (core share, wake-ups per s)


def bringup_seconds() -> list[float]:
    times = []
    for _ in range(BRINGUPS):
        start = time.monotonic()
        with Dumbbell(DumbbellSpec()):
            times.append(time.monotonic() - start)
    return times


def router_cpu() -> tuple[list[RouterCpu], float, float]:
    """Each router's CPU, and the Mbit/s delivered client->server and server->client."""
    with Dumbbell(DumbbellSpec()) as net:
        pairs = [(c, s) for c in net.clients() for s in net.servers()]
        processes = []
        for k, (_, server) in enumerate(pairs):
            for reverse in (False, True):
                port = 5301 + 2 * k + reverse
                server_cmd = ["iperf3", "-s", "-1", "-p", str(port)]
                processes.append(net.host(server).popen(server_cmd, stdout=subprocess.DEVNULL))
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
        routers = net.manifest["routers"]
        time.sleep(WARMUP_S)
        before = {
            n: (_thread_stats(r["pid"]), _rx_packets(list(r["interfaces"].values())))
            for n, r in routers.items()
        }
        start = time.monotonic()
        time.sleep(MEASURE_S)
        after = {
            n: (_thread_stats(r["pid"]), _rx_packets(list(r["interfaces"].values())))
            for n, r in routers.items()
        }
        elapsed = time.monotonic() - start
        delivered = [0.0, 0.0]
        for reverse, process in clients:
            report = json.loads(process.communicate()[0])
            delivered[reverse] += report["end"]["sum_received"]["bits_per_second"] / 1e6
        for process in processes:
            process.kill()
            process.wait()
    results = []
    for name in routers:
        (t0, p0), (t1, p1) = before[name], after[name]
        threads = {
            thread: (
                (t1[thread][0] - t0[thread][0]) / elapsed,
                (t1[thread][1] - t0[thread][1]) / elapsed,
            )
            for thread in t1
            if thread in t0
        }
        total = sum(share for share, _ in threads.values())
        results.append(RouterCpu(name, total, (p1 - p0) / elapsed, threads))
    return results, delivered[0], delivered[1]


def report(per_packet_s: float) -> list[str]:
    times = bringup_seconds()
    lines = [
        f"  bring-up of the default dumbbell: median {statistics.median(times):.2f} s"
        f" (of {', '.join(f'{t:.2f}' for t in times)}; target under 15 s)"
    ]
    routers, forward_mbps, reverse_mbps = router_cpu()
    lines.append(
        f"  9 cubic flows each way for {MEASURE_S} s after {WARMUP_S} s:"
        f" {forward_mbps:.2f} Mbit/s client->server, {reverse_mbps:.2f} server->client"
    )
    for router in routers:
        floor = router.packets_per_s * per_packet_s
        lines.append(
            f"  {router.name}: {router.core_share:5.1%} of a core (target under 5 %);"
            f" {router.packets_per_s / 1e3:.2f} kpps received; baseline at the saturation"
            f" cost of {per_packet_s * 1e6:.1f} us/packet: {floor:.1%}"
        )
        for thread, (share, wakes) in sorted(router.threads.items(), key=lambda t: -t[1][0]):
            if share >= 0.001:
                per_wake = f", {share / wakes * 1e6:5.1f} us CPU per wake-up" if wakes else ""
                lines.append(
                    f"    thread {thread:<12} {share:5.1%}  {wakes:7.0f} wake-ups/s{per_wake}"
                )
    return lines
