"""What the per-flow TCP tracer costs: % of a core to sample 100 connections every 10 ms,
beside the obvious alternative measured in the same run, `ss -tin` every 10 ms.

Method: this process opens FLOWS loopback connections on one port and keeps them moving
(each sends a byte and reads it back every 100 ms, so their tcp_info changes). Then,
ROUNDS times in turn, each sampler runs for SLICE_S seconds as a child process with
the same period:
- the tracer: `python -m p4aqm.traffic.tcp_trace --period-ms 10 --port PORT`, into a
  Parquet file (its imports and the file's writing included);
- the baseline: a shell loop of `ss -tinH sport = :PORT or dport = :PORT`, then
  `sleep 0.01`, its output discarded (what a script reading ss would pay at least).
Figures: CPU seconds per wall second of the child and its children (os.wait4's rusage,
user + system), as % of one core, and for the tracer the rows it wrote per second
(FLOWS x 2 ends x 100 a second when it keeps up).

    .venv/bin/python scripts/bench/tracer_cost.py
"""

import os
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from p4aqm.traffic.records import read_records

FLOWS = 100
PERIOD_MS = 10
SLICE_S = 10.0
ROUNDS = 2
KEEPALIVE_S = 0.1


class Connections:
    """FLOWS loopback connections on one port, each echoing a byte every KEEPALIVE_S."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.pairs = []
        for _ in range(FLOWS):
            client = socket.create_connection(("127.0.0.1", self.port))
            accepted, _ = self.server.accept()
            self.pairs.append((client, accepted))
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._echo, daemon=True)
        self.thread.start()

    def _echo(self) -> None:
        selector = selectors.DefaultSelector()
        for _, accepted in self.pairs:
            selector.register(accepted, selectors.EVENT_READ)
        while not self.stopping.wait(KEEPALIVE_S):
            for client, _ in self.pairs:
                client.send(b"x")
            for key, _ in selector.select(timeout=0.05):
                key.fileobj.recv(64)

    def close(self) -> None:
        self.stopping.set()
        self.thread.join()
        for client, accepted in self.pairs:
            client.close()
            accepted.close()
        self.server.close()


def cpu_share(command: list[str]) -> tuple[float, float]:
    """Run command for SLICE_S seconds, stop it (SIGTERM), and return its CPU (% of a
    core, its children included) and wall seconds."""
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, start_new_session=True)
    time.sleep(SLICE_S)
    os.killpg(process.pid, signal.SIGTERM)
    _, _, usage = os.wait4(process.pid, 0)
    wall_s = time.monotonic() - start
    return 100 * (usage.ru_utime + usage.ru_stime) / wall_s, wall_s


def report() -> list[str]:
    connections = Connections()
    port = connections.port
    tracer_cpu, ss_cpu, rows_per_s = [], [], []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for k in range(ROUNDS):
                out = Path(tmp) / f"trace{k}.parquet"
                command = [
                    sys.executable, "-m", "p4aqm.traffic.tcp_trace", "--out", str(out),
                    "--period-ms", str(PERIOD_MS), "--port", str(port),
                ]  # fmt: skip
                share, wall_s = cpu_share(command)
                tracer_cpu.append(share)
                rows_per_s.append(len(read_records(out)[0]) / wall_s)
                loop = (
                    f"while :; do ss -tinH 'sport = :{port} or dport = :{port}' >/dev/null;"
                    f" sleep {PERIOD_MS / 1000}; done"
                )
                ss_cpu.append(cpu_share(["sh", "-c", loop])[0])
    finally:
        connections.close()
    expected = FLOWS * 2 * 1000 / PERIOD_MS
    return [
        f"  {FLOWS} connections ({2 * FLOWS} ends) every {PERIOD_MS} ms, {ROUNDS} slices of"
        f" {SLICE_S:g} s each:",
        f"  tracer (sock_diag, p4aqm/traffic/tcp_trace.py)  {sum(tracer_cpu) / ROUNDS:5.1f} %"
        f" of a core   {sum(rows_per_s) / ROUNDS:8,.0f} rows/s (all: {expected:,.0f})",
        f"  baseline: ss -tin in a shell loop               {sum(ss_cpu) / ROUNDS:5.1f} %"
        " of a core",
    ]


if __name__ == "__main__":
    print("\n".join(report()))
