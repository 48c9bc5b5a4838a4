"""What the queue monitor costs the switch: its CPU while 10 Mbit/s of TCP-like traffic
crosses it, with no sampling, with the monitor, and with the old polling sampler.

Method: the forwarding harness (forwarding.py) with 4 ports, `p4aqm switch` pinned to
CPU 1, running red.p4 with RED (min_th 5, max_th 15, max_p 0.1) on all 4 ports and port
2's queue drained at 10 Mbit/s (`queue: rate_bps`, set by `p4aqm controller`). A paced
sender on CPU 0 (SEND: raw sockets, frames on a fixed time grid) stands in for a TCP
flow for the whole run: 1500-byte IPv4/TCP frames from h1 to h2 at DATA_PPS (10 Mbit/s,
through port 2's queue) and 64-byte ACK frames from h2 to h1 at ACK_PPS (one per two
segments, through port 1).
The three conditions take turns in slices of SLICE_S seconds, ROUNDS times (off,
monitor, polling, off, ...), so the VM's drifting CPU speed falls on all three alike:

- monitor off: nothing samples the switch.
- monitor on: `p4aqm controller CONFIG --sample out.parquet --period-ms 3`, which on our
  switch subscribes to the dataplane's queue monitor over gNMI (all 4 ports).
- polling (the baseline): p4aqm/controller/sampler.py's `Sampler` and `sample` called directly
  from a small Python process (the CLI would pick the monitor), one P4Runtime Read of
  every probe of the 4 ports per 3 ms tick, into a Parquet file too.

A sampler is started for its slice and stopped (SIGTERM) after it; the slice is measured
from WARMUP_S after its file appears (sampling has begun, imports and connection are
done) for SLICE_S seconds. Figures, each over all of a condition's slices together:

- switch: CPU seconds per second of the `p4aqm switch` process, all its threads
  (utime + stime of /proc/<pid>/stat, clock ticks), as % of one core; the difference
  from "monitor off" is what sampling adds. Target: the monitor adds under 2 % of a core.
- sampler: the same for the sampling process (the controller, or the polling script).
- samples/s: the file's rows whose realtime_ns falls in the slice, per port per second
  (333 is every 3 ms period); a polling sampler that falls behind skips ticks.
- missed, overruns: the monitor's totals as the controller prints them at exit, summed
  over its streams (warm-up and stop included): periods the switch sampled late by a
  whole period, and records dropped for a full buffer.
- traffic: the growth of h2's rx_bytes (what port 2 delivered), in Mbit/s.

As forwarding.py says, this VM's CPU speed varies: compare figures of one run only.

    .venv/bin/python scripts/bench/monitor_cost.py [--slice-s N] [--rounds N]
"""

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import yaml
from forwarding import counter
from scapy.layers.inet import IP, TCP
from scapy.layers.l2 import Ether
from scapy.packet import Padding

from build import REPO, compile_to
from p4aqm.schema import Column
from p4aqm.topology.netlab import TestNetwork

LINK_BPS = 10_000_000
DATA_BYTES, DATA_PPS = 1500, 833  # 1500 * 8 * 833 = 10.0 Mbit/s
ACK_BYTES, ACK_PPS = 64, 417  # delayed ACKs: one per two segments
PORTS = 4
PERIOD_MS = 3.0
SLICE_S = 10.0
ROUNDS = 2
WARMUP_S = 2.0
TARGET_ADDED = 0.02  # of a core, the monitor's budget over "off"
SWITCH_CPU = 1
TRAFFIC_CPU = 0
# Keywords, not string keys: "max_p" would read as the monitor's column of that name.
RED = dict(discipline="red", min_th=5, max_th=15, max_p=0.1)
P4AQM = str(Path(sys.executable).parent / "p4aqm")
CLOCK_TICK_S = 1 / os.sysconf("SC_CLK_TCK")
OFF, MONITOR, POLLING = "off", "monitor", "polling"

# Run in the network's namespace: frames on fixed deadlines, (dev, frame hex, pps) each.
# Not trafgen: its --rate sends each second's frames in one burst, and --gap sleeps
# between frames, so its rate falls short by the time a send and a wake-up take.
SEND = """
import socket, sys, time
flows = []
for dev, frame, pps in zip(*[iter(sys.argv[1:])] * 3):
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    sock.bind((dev, 0))
    flows.append([time.monotonic(), 1 / float(pps), sock, bytes.fromhex(frame)])
while True:
    flow = min(flows, key=lambda f: f[0])
    time.sleep(max(0.0, flow[0] - time.monotonic()))
    flow[2].send(flow[3])
    flow[0] += flow[1]  # a grid, not a gap: a late wake-up does not lower the rate
"""

# Run in the network's namespace: the polling sampler, forced (the CLI picks the monitor).
POLL = """
import signal
import sys
import threading
from pathlib import Path
from p4aqm.controller.config import load_config
from p4aqm.controller.recording import MonitorRecording
from p4aqm.controller.sampler import Sampler

config = load_config(Path(sys.argv[1]))
ports = {p: c.aqm.probes() for p, c in config.ports.items() if c.aqm is not None}
period_s = float(sys.argv[3]) / 1000
s = config.switch
sampler = Sampler(s.grpc_addr, s.device_id, config.pipeline.p4info, ports, period_s=period_s)
stop = threading.Event()
for signum in (signal.SIGINT, signal.SIGTERM):
    signal.signal(signum, lambda *_: stop.set())
recording = MonitorRecording.of(sampler, period_s, Path(sys.argv[2]))
while not stop.wait(0.2) and recording.running:
    pass
print(f"{recording.stop()} sample row(s) written")
"""


@dataclass(frozen=True)
class Slice:
    """One condition's measurement: wall seconds, CPU seconds, what was sampled."""

    seconds: float
    switch_cpu_s: float
    sampler_cpu_s: float
    samples: int  # rows in the window, all ports
    data_bytes: int
    missed: int
    overruns: int


@dataclass(frozen=True)
class Cost:
    """A condition's figures over all its slices together."""

    switch: float  # CPU seconds per second
    sampler: float
    samples_per_port_s: float
    mbps: float
    missed: int
    overruns: int


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, all its threads, from /proc/<pid>/stat."""
    # Fields after the command name (which may hold spaces) start at field 3, state.
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * CLOCK_TICK_S


def tcp_frame(src: int, dst: int, size: int, flags: str) -> bytes:
    """A frame from host `src` to host `dst` through the switch, padded to `size`."""
    base = (
        Ether(dst=f"00:00:00:00:{src:02x}:ff", src=f"00:00:00:00:{src:02x}:{src:02x}")
        / IP(src=f"10.0.{src}.1", dst=f"10.0.{dst}.1", ttl=64)
        / TCP(sport=5000 + src, dport=5000 + dst, flags=flags)
    )
    return bytes(base / Padding(b"\x00" * (size - len(base))))


def controller_config(grpc_addr: str, json_path: Path, p4info_path: Path) -> dict:
    ports: dict[int, dict] = {port: {"aqm": RED} for port in range(1, PORTS + 1)}
    ports[2]["queue"] = {"rate_bps": LINK_BPS}
    routes = [
        {
            "prefix": f"10.0.{port}.0/24",
            "port": port,
            "dst_mac": f"00:00:00:00:{port:02x}:{port:02x}",
            "src_mac": f"00:00:00:00:{port:02x}:ff",
        }
        for port in range(1, PORTS + 1)
    ]
    return {
        "switch": {"grpc_addr": grpc_addr},
        "pipeline": {"p4info": str(p4info_path), "bmv2_json": str(json_path)},
        "routes": routes,
        "ports": ports,
    }


def start_traffic(net: TestNetwork) -> None:
    """The paced sender, on TRAFFIC_CPU, until the network closes."""
    flows = [("h1", tcp_frame(1, 2, DATA_BYTES, "PA"), DATA_PPS)]
    flows.append(("h2", tcp_frame(2, 1, ACK_BYTES, "A"), ACK_PPS))
    args = [str(v) for dev, data, pps in flows for v in (dev, data.hex(), pps)]
    net.spawn(["taskset", "-c", str(TRAFFIC_CPU), sys.executable, "-c", SEND, *args])


def wait_for_file(path: Path, process: subprocess.Popen[str], timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not path.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            output = process.communicate()[0]
            raise RuntimeError(f"bench: the sampler did not start:\n{output}")
        time.sleep(0.05)


def measure(
    net: TestNetwork, switch_pid: int, sampler_args: list[str] | None, out: Path, slice_s: float
) -> Slice:
    """One slice; with `sampler_args`, a sampler writing `out` runs through it."""
    sampler = net.spawn(sampler_args) if sampler_args else None
    if sampler is not None:
        wait_for_file(out, sampler)
    time.sleep(WARMUP_S)
    pid = sampler.pid if sampler is not None else None
    start_ns, start = time.time_ns(), time.monotonic()
    switch0, sampler0 = cpu_seconds(switch_pid), cpu_seconds(pid) if pid else 0.0
    bytes0 = counter(net, "h2", "rx_bytes")
    time.sleep(slice_s)
    switch1, sampler1 = cpu_seconds(switch_pid), cpu_seconds(pid) if pid else 0.0
    bytes1 = counter(net, "h2", "rx_bytes")
    seconds, end_ns = time.monotonic() - start, time.time_ns()
    samples = missed = overruns = 0
    if sampler is not None:
        sampler.send_signal(signal.SIGTERM)  # both samplers close their file on SIGTERM
        output = sampler.communicate(timeout=60)[0]
        if sampler.returncode != 0:
            raise RuntimeError(f"bench: the sampler failed:\n{output}")
        found = re.search(r"missed (\d+) period\(s\) and dropped (\d+) record", output)
        if found is None and "controller" in sampler_args:
            raise RuntimeError(f"bench: the controller did not use the monitor:\n{output}")
        missed, overruns = (int(found[1]), int(found[2])) if found else (0, 0)
        times = pd.read_parquet(out, columns=[Column.REALTIME_NS])[Column.REALTIME_NS]
        samples = int(times.between(start_ns, end_ns).sum())
        out.unlink()
    return Slice(
        seconds, switch1 - switch0, sampler1 - sampler0, samples, bytes1 - bytes0, missed, overruns
    )


def total(slices: list[Slice]) -> Cost:
    seconds = sum(s.seconds for s in slices)
    return Cost(
        sum(s.switch_cpu_s for s in slices) / seconds,
        sum(s.sampler_cpu_s for s in slices) / seconds,
        sum(s.samples for s in slices) / PORTS / seconds,
        sum(s.data_bytes for s in slices) * 8 / seconds / 1e6,
        sum(s.missed for s in slices),
        sum(s.overruns for s in slices),
    )


def run(slice_s: float = SLICE_S, rounds: int = ROUNDS) -> list[Cost]:
    """The three conditions' costs: off, monitor, polling."""
    slices: dict[str, list[Slice]] = {OFF: [], MONITOR: [], POLLING: []}
    with tempfile.TemporaryDirectory() as tmp_name, TestNetwork(ports=PORTS) as net:
        tmp = Path(tmp_name)
        json_path, p4info_path = compile_to(REPO / "p4src" / "red.p4", tmp)
        grpc_addr = net.start_switch(cpu=SWITCH_CPU)
        switch_pid = net.processes[-1].pid  # `ip netns exec` and taskset exec, not fork
        config = tmp / "red.yaml"
        config.write_text(yaml.safe_dump(controller_config(grpc_addr, json_path, p4info_path)))
        net.run([P4AQM, "controller", str(config)], check=True)
        start_traffic(net)
        out = tmp / "samples.parquet"
        period = f"{PERIOD_MS:g}"
        sample = ["--sample", str(out), "--period-ms", period]
        samplers = {
            OFF: None,
            MONITOR: [P4AQM, "controller", str(config), *sample],
            POLLING: [sys.executable, "-c", POLL, str(config), str(out), period],
        }
        for _ in range(rounds):
            for condition, args in samplers.items():
                slices[condition].append(measure(net, switch_pid, args, out, slice_s))
    return [total(s) for s in slices.values()]


def report(costs: list[Cost]) -> list[str]:
    off, monitor, polling = costs
    period = f"({PERIOD_MS:g} ms, {PORTS} ports)"
    target = f"; target: under +{TARGET_ADDED * 100:.1f}"
    lines = []
    for name, cost in (
        ("monitor off", off),
        (f"monitor on {period}", monitor),
        (f"polling baseline {period}", polling),
    ):
        line = f"  {name:<34} switch {cost.switch:5.1%} of a core"
        if cost is not off:
            added = (cost.switch - off.switch) * 100
            line += (
                f" ({added:+.1f} vs off{target if cost is monitor else ''}),"
                f" sampler {cost.sampler:.1%}, {cost.samples_per_port_s:.0f} samples/s per port"
            )
        if cost is monitor:
            line += f", missed {cost.missed}, overruns {cost.overruns}"
        lines.append(f"{line} [{cost.mbps:.1f} Mbit/s crossing]")
    return lines


def title(slice_s: float = SLICE_S, rounds: int = ROUNDS) -> str:
    return (
        "Queue monitor's cost: switch CPU with 10 Mbit/s of TCP-like traffic crossing"
        f" (red.p4 on {PORTS} ports; {rounds} x {slice_s:g} s per condition, interleaved)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slice-s", type=float, default=SLICE_S)
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    args = parser.parse_args()
    print(f"== {title(args.slice_s, args.rounds)}")
    for line in report(run(args.slice_s, args.rounds)):
        print(line)


if __name__ == "__main__":
    main()
