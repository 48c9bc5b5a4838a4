"""Mininet switches that run a P4Runtime switch process, one port per attached interface:
`p4aqm switch`, or BMv2's `simple_switch_grpc` with the same flags where it is on PATH."""

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import grpc
from finsy.proto import p4r, p4r_grpc
from mininet.node import Switch

from p4aqm.topology.netlab import DIE_WITH_PARENT

_LISTENING = re.compile(r"listening on (\S+):(\d+),")
SIMPLE_SWITCH_GRPC = "simple_switch_grpc"
START_ATTEMPTS = 2


def p4runtime_answers(grpc_addr: str, timeout_s: float = 1.0) -> bool:
    """True once a P4Runtime server at grpc_addr answers a Capabilities request."""
    try:
        with grpc.insecure_channel(grpc_addr) as channel:
            p4r_grpc.P4RuntimeStub(channel).Capabilities(
                p4r.CapabilitiesRequest(), timeout=timeout_s
            )
    except grpc.RpcError:
        return False
    return True


def free_tcp_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class P4AqmSwitch(Switch):
    """`p4aqm switch -i N@intf ...` in the root namespace, its gRPC server on 127.0.0.1.

    grpc_port 0 (the default) lets the switch pick a free port; `grpc_addr` holds the
    address once started. start() returns only when the P4Runtime server answers;
    stop() sends SIGTERM to the switch's process group, then SIGKILL after 5 s."""

    kind = "p4aqm"

    def __init__(
        self,
        name: str,
        device_id: int = 0,
        grpc_port: int = 0,
        log_path: Path | None = None,
        startup_timeout_s: float = 20.0,
        realtime_priority: int | None = None,
        priority_queues: int = 1,
        cpu: int | None = None,
        **params: Any,  # noqa: ANN401 (Mininet's node parameters)
    ) -> None:
        params["inNamespace"] = False  # its ports are the root namespace's veth ends
        super().__init__(name, **params)
        self.device_id = device_id
        self.realtime_priority = realtime_priority
        # Queues per egress port, picked by standard_metadata.priority (CBQ's classes).
        self.priority_queues = priority_queues
        # The CPU its process and every thread it starts are held to (None: any).
        self.cpu = cpu
        self.grpc_port = grpc_port
        self.grpc_addr: str | None = None
        self.log_path = log_path
        self.startup_timeout_s = startup_timeout_s
        self.process: subprocess.Popen[str] | None = None
        self.output: list[str] = []

    def interface_args(self) -> list[str]:
        args = []
        for port, intf in sorted(self.intfs.items()):
            if intf.name != "lo":
                args += ["-i", f"{port}@{intf.name}"]
        return args

    def switch_args(self) -> list[str]:
        p4aqm = str(Path(sys.executable).parent / "p4aqm")
        args = [p4aqm, "switch", "--no-p4", "--device-id", str(self.device_id)]
        args += ["--grpc-server-addr", f"127.0.0.1:{self.grpc_port}"]
        if self.realtime_priority is not None:
            args += ["--realtime-priority", str(self.realtime_priority)]
        if self.priority_queues > 1:
            args += ["--priority-queues", str(self.priority_queues)]
        return args + self.interface_args()

    def start(self, controllers: list) -> None:  # noqa: ARG002 (no OpenFlow controllers)
        # A switch that exits before it listens is started once more: seen once in CI,
        # where gRPC aborted on a transient pthread_create EAGAIN. Both outputs are kept.
        for attempt in range(START_ATTEMPTS):
            if self._launch():
                return
            if attempt + 1 < START_ATTEMPTS:
                self.output.append(f"--- {self.name} exited while starting; starting again\n")
                time.sleep(1.0)
        self._fail("did not start")

    def _launch(self) -> bool:
        """Start the process; True once P4Runtime answers, False if it exited before it
        listened. Raises on a timeout or an exit after it listened."""
        listening = threading.Event()
        # taskset before the exec, so that threads the switch starts inherit the CPU.
        pinned = ["taskset", "--cpu-list", str(self.cpu)] if self.cpu is not None else []
        process = subprocess.Popen(
            [*DIE_WITH_PARENT, *pinned, *self.switch_args()],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.process = process

        def drain() -> None:
            assert process.stdout is not None
            log = self.log_path.open("a") if self.log_path else None
            for line in process.stdout:
                self.output.append(line)
                if log:
                    log.write(line)
                    log.flush()
                match = _LISTENING.search(line)
                if match and not listening.is_set():
                    self.grpc_addr = f"{match.group(1)}:{match.group(2)}"
                    listening.set()
            if log:
                log.close()

        drainer = threading.Thread(target=drain, daemon=True, name=f"{self.name}-output")
        drainer.start()
        deadline = time.monotonic() + self.startup_timeout_s
        while self.grpc_addr is None and not listening.wait(0.05):
            if process.poll() is not None:
                drainer.join(timeout=1.0)
                self.process = None
                return False
            if time.monotonic() > deadline:
                self._fail("did not start")
        while not p4runtime_answers(self.grpc_addr or "", timeout_s=0.5):
            if process.poll() is not None or time.monotonic() > deadline:
                self._fail("P4Runtime server did not answer")
            time.sleep(0.05)
        return True

    def _fail(self, what: str) -> None:
        time.sleep(0.1)  # let the drain thread take the last lines
        output = "".join(self.output) or "(no output)"
        self.stop(deleteIntfs=False)
        raise RuntimeError(f"{self.name}: {' '.join(self.switch_args())}: {what}:\n{output}")

    def stop(self, deleteIntfs: bool = True) -> None:  # noqa: N803 (Mininet's name)
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        super().stop(deleteIntfs)


class Bmv2Switch(P4AqmSwitch):
    """BMv2's `simple_switch_grpc` with the flags P4AqmSwitch gives `p4aqm switch`, and a
    Thrift port of its own for simple_switch_CLI (queue rates and depths)."""

    kind = "bmv2"

    def __init__(self, name: str, **params: Any) -> None:  # noqa: ANN401 (Mininet's)
        if shutil.which(SIMPLE_SWITCH_GRPC) is None:
            raise FileNotFoundError(f"{SIMPLE_SWITCH_GRPC} is not on PATH (BMv2 is not installed)")
        super().__init__(name, **params)
        # BMv2 prints no line with its gRPC port: both ports are picked here.
        self.grpc_port = self.grpc_port or free_tcp_port()
        self.thrift_port = free_tcp_port()
        self.grpc_addr = f"127.0.0.1:{self.grpc_port}"

    def switch_args(self) -> list[str]:
        args = [SIMPLE_SWITCH_GRPC, "--no-p4", "--device-id", str(self.device_id)]
        args += ["--thrift-port", str(self.thrift_port), *self.interface_args()]
        target = ["--grpc-server-addr", self.grpc_addr or ""]
        if self.priority_queues > 1:
            # A target option of simple_switch's, after the `--` as the gRPC address is.
            target += ["--priority-queues", str(self.priority_queues)]
        return [*args, "--", *target]
