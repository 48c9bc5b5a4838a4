"""Soak: `p4aqm switch` forwarding l3_forward at a fixed rate for a long time; its memory.

Method: the forwarding harness (forwarding.py: two veths in a namespace, switch pinned to
CPU 1, trafgen on CPU 0) with trafgen limited to RATE_PPS of 64-byte frames, for
DURATION_S seconds. The switch's resident memory (VmRSS of its process) is sampled every
SAMPLE_S seconds; growth is measured from the sample after WARMUP_S to the last one.
At the end it prints the interfaces' and the switch's packet counters: h1's sent minus
the switch's received is what the receive ring dropped (the switch's core was too busy).

    .venv/bin/python scripts/bench/soak.py [--rate-pps N] [--duration-s N]
"""

import argparse
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

from forwarding import counter, frame, install_routes, trafgen_config

from build import REPO, compile_to
from p4aqm.topology.netlab import TestNetwork

SAMPLE_S = 10.0
WARMUP_S = 60.0

# Run in the network's namespace: the switch's own port counters, over gNMI.
COUNTERS = """
import asyncio, sys
from finsy import GNMIClient, GNMIPath
from p4aqm.schema import Group, container_path

async def main():
    async with GNMIClient(sys.argv[1]) as client:
        for port in (1, 2):
            path = GNMIPath(container_path(Group.PORT_COUNTERS, port))
            for update in await client.get(path):
                name = str(update.path).rsplit("/", 1)[-1]
                print(f"  switch port {port} {name}: {update.value}")

asyncio.run(main())
"""


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for pid {pid}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate-pps", type=int, default=60_000)
    parser.add_argument("--duration-s", type=float, default=1800.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, TestNetwork(ports=2) as net:
        json_path, p4info_path = compile_to(REPO / "p4src" / "l3_forward.p4", Path(tmp))
        grpc_addr = net.start_switch(cpu=1)
        switch_pid = net.processes[-1].pid
        install_routes(net, grpc_addr, json_path, p4info_path, Path(tmp), with_routes=True)
        cfg = Path(tmp) / "frame.cfg"
        cfg.write_text(trafgen_config(frame(64)))
        generator = net.spawn(
            [
                "taskset",
                "-c",
                "0",
                "trafgen",
                "--dev",
                "h1",
                "--conf",
                str(cfg),
                "--cpus",
                "1",
                "--rate",
                f"{args.rate_pps}pps",
                "-q",
            ]
        )
        start = time.monotonic()
        samples: list[tuple[float, int, int, int]] = []
        while (elapsed := time.monotonic() - start) < args.duration_s:
            offered = counter(net, "h1", "tx_packets")
            delivered = counter(net, "h2", "rx_packets")
            samples.append((elapsed, rss_kib(switch_pid), delivered, offered))
            print(
                f"  t={elapsed:7.0f} s  rss={samples[-1][1]:8d} KiB"
                f"  offered={offered}  delivered={delivered}"
            )
            time.sleep(SAMPLE_S)
        # trafgen runs its sender in a child process: stop the whole group.
        os.killpg(generator.pid, signal.SIGKILL)
        generator.wait()
        time.sleep(1.0)
        print(
            f"  h1 sent {counter(net, 'h1', 'tx_packets')}, s1 received"
            f" {counter(net, 's1', 'rx_packets')}, h2 received {counter(net, 'h2', 'rx_packets')}"
        )
        print(net.run([sys.executable, "-c", COUNTERS, grpc_addr], check=True).stdout, end="")
    base = next(s for s in samples if s[0] >= min(WARMUP_S, samples[-1][0]))
    last = samples[-1]
    growth = (last[1] - base[1]) / base[1]
    span = max(last[0] - samples[0][0], 1e-9)
    delivered_pps = (last[2] - samples[0][2]) / span
    offered_pps = (last[3] - samples[0][3]) / span
    print(
        f"soak: {offered_pps:,.0f} pps offered, {delivered_pps:,.0f} pps delivered"
        f" for {last[0]:.0f} s;"
        f" RSS {base[1]} KiB at {base[0]:.0f} s -> {last[1]} KiB at {last[0]:.0f} s"
        f" ({growth:+.2%})"
    )


if __name__ == "__main__":
    main()
