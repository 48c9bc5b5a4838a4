"""A Mininet switch that runs `p4aqm switch`, one port per attached interface."""

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import grpc
from finsy.proto import p4r, p4r_grpc
from mininet.node import Switch

from p4aqm.netlab import die_with_parent

_LISTENING = re.compile(r"listening on (\S+):(\d+),")


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


class P4AqmSwitch(Switch):
    """`p4aqm switch -i N@intf ...` in the root namespace, its gRPC server on 127.0.0.1.

    grpc_port 0 (the default) lets the switch pick a free port; `grpc_addr` holds the
    address once started. start() returns only when the P4Runtime server answers;
    stop() sends SIGTERM to the switch's process group, then SIGKILL after 5 s."""

    command = "switch"

    def __init__(
        self,
        name: str,
        device_id: int = 0,
        grpc_port: int = 0,
        log_path: Path | None = None,
        startup_timeout_s: float = 20.0,
        **params: Any,  # noqa: ANN401 (Mininet's node parameters)
    ) -> None:
        params["inNamespace"] = False  # its ports are the root namespace's veth ends
        super().__init__(name, **params)
        self.device_id = device_id
        self.grpc_port = grpc_port
        self.grpc_addr: str | None = None
        self.log_path = log_path
        self.startup_timeout_s = startup_timeout_s
        self.process: subprocess.Popen[str] | None = None
        self.output: list[str] = []

    def switch_args(self) -> list[str]:
        p4aqm = str(Path(sys.executable).parent / "p4aqm")
        args = [p4aqm, "switch", "--no-p4", "--device-id", str(self.device_id)]
        args += ["--grpc-server-addr", f"127.0.0.1:{self.grpc_port}"]
        for port, intf in sorted(self.intfs.items()):
            if intf.name != "lo":
                args += ["-i", f"{port}@{intf.name}"]
        return args

    def start(self, controllers: list) -> None:  # noqa: ARG002 (no OpenFlow controllers)
        listening = threading.Event()
        self.process = subprocess.Popen(
            self.switch_args(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
            preexec_fn=die_with_parent,
        )

        def drain() -> None:
            assert self.process is not None and self.process.stdout is not None
            log = self.log_path.open("a") if self.log_path else None
            for line in self.process.stdout:
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

        threading.Thread(target=drain, daemon=True, name=f"{self.name}-output").start()
        deadline = time.monotonic() + self.startup_timeout_s
        while not listening.wait(0.05):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self._fail("did not start")
        while not p4runtime_answers(self.grpc_addr or "", timeout_s=0.5):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self._fail("P4Runtime server did not answer")
            time.sleep(0.05)

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
