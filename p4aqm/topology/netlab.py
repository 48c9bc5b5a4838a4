"""A throwaway network for tests and benchmarks: one namespace with the switch and veths.

Port N of the switch is veth `sN`; its peer `hN` is where a test (PTF, scapy) sends
and receives. With `hosts=True`, each `hN` moves into a namespace of its own and becomes
a host with a kernel TCP/IP stack: 10.0.N.1/24, MAC 00:00:00:00:0N:0N, default route
via 10.0.N.254, whose MAC is 00:00:00:00:0N:ff (the addresses of
examples/controller/l3_forward.yaml).

Everything lives in namespaces, so the switch's gRPC port on the namespace's loopback
never collides with anything outside, and deleting the namespaces deletes every veth.
Processes started here are killed on exit, and get SIGKILL from the kernel if the
process that started them dies.
"""

import itertools
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from types import TracebackType

NAMESPACE_PREFIX = "p4aqm-t"
_sequence = itertools.count()


# A command prefix: the kernel kills the command when the process that started it dies.
# setpriv sets it after the fork, so the parent needs no preexec_fn: Python code between
# fork and exec is unsafe in a process whose other threads hold locks (gRPC's do, in a
# process that keeps a router's session open while it starts more switches).
DIE_WITH_PARENT = ["setpriv", "--pdeathsig", "KILL", "--"]


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True)


def list_namespaces() -> list[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def _pid_alive(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists()


def remove_stale_namespaces() -> None:
    """Delete namespaces left by test runs that were killed before their cleanup ran."""
    for name in list_namespaces():
        if not name.startswith(NAMESPACE_PREFIX):
            continue
        owner = name[len(NAMESPACE_PREFIX) :].split("-", 1)[0]
        if owner.isdigit() and not _pid_alive(int(owner)):
            subprocess.run(["ip", "netns", "del", name], capture_output=True)


class TestNetwork:
    __test__ = False  # not a pytest test class

    def __init__(self, ports: int = 2, hosts: bool = False) -> None:
        self.name = f"{NAMESPACE_PREFIX}{os.getpid()}-{next(_sequence)}"
        self.ports = list(range(1, ports + 1))
        self.hosts = hosts
        self.processes: list[subprocess.Popen[str]] = []

    def host_namespace(self, port: int) -> str:
        return f"{self.name}-h{port}"

    def __enter__(self) -> "TestNetwork":
        _ip("netns", "add", self.name)
        try:
            self._build()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _build(self) -> None:
        _ip("-n", self.name, "link", "set", "lo", "up")
        # IPv6 router solicitations and the like would show up as unexpected packets.
        self.run(["sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"], check=True)
        self.run(["sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1"], check=True)
        for port in self.ports:
            switch_end, host_end = f"s{port}", f"h{port}"
            veth = ["type", "veth", "peer", "name", host_end]
            _ip("-n", self.name, "link", "add", switch_end, *veth)
            for end in (switch_end, host_end):
                _ip("-n", self.name, "link", "set", end, "up")
            if self.hosts:
                self._make_host(port)

    def _make_host(self, port: int) -> None:
        host = self.host_namespace(port)
        dev = f"h{port}"
        _ip("netns", "add", host)
        _ip("-n", self.name, "link", "set", dev, "netns", host)
        _ip("-n", host, "link", "set", "lo", "up")
        _ip("-n", host, "link", "set", dev, "address", f"00:00:00:00:{port:02x}:{port:02x}")
        _ip("-n", host, "link", "set", dev, "up")
        _ip("-n", host, "addr", "add", f"10.0.{port}.1/24", "dev", dev)
        gateway = f"10.0.{port}.254"
        _ip("-n", host, "neigh", "add", gateway, "lladdr", f"00:00:00:00:{port:02x}:ff", "dev", dev)
        _ip("-n", host, "route", "add", "default", "via", gateway)
        # The switch forwards bytes as they are: checksums must be complete when sent.
        subprocess.run(
            ["ip", "netns", "exec", host, "ethtool", "-K", dev, "tx", "off"],
            check=True,
            capture_output=True,
        )

    def host_run(
        self, port: int, args: list[str], timeout_s: float = 60.0
    ) -> subprocess.CompletedProcess[str]:
        """Run a command on host N (needs hosts=True)."""
        return subprocess.run(
            [*DIE_WITH_PARENT, "ip", "netns", "exec", self.host_namespace(port), *args],
            capture_output=True,
            text=True,
            timeout=timeout_s,
        )

    def command(self, args: list[str]) -> list[str]:
        return ["ip", "netns", "exec", self.name, *args]

    def run(
        self, args: list[str], timeout_s: float = 60.0, check: bool = False
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*DIE_WITH_PARENT, *self.command(args)],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=check,
        )

    def spawn(self, args: list[str]) -> subprocess.Popen[str]:
        process = subprocess.Popen(
            [*DIE_WITH_PARENT, *self.command(args)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.processes.append(process)
        return process

    def start_switch(
        self,
        extra_args: list[str] | None = None,
        timeout_s: float = 20.0,
        cpu: int | None = None,
    ) -> str:
        """Start `p4aqm switch` on all ports (pinned to `cpu` if given); return its address."""
        grpc_addr = "127.0.0.1:9559"
        p4aqm = str(Path(sys.executable).parent / "p4aqm")
        pin = ["taskset", "-c", str(cpu)] if cpu is not None else []
        args = [*pin, p4aqm, "switch", "--no-p4", "--grpc-server-addr", grpc_addr]
        for port in self.ports:
            args += ["-i", f"{port}@s{port}"]
        process = self.spawn(args + (extra_args or []))
        _wait_for_line(process, "listening", timeout_s)
        return grpc_addr

    def close(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
            if process.stdout:
                process.stdout.close()
        hosts = [self.host_namespace(port) for port in self.ports] if self.hosts else []
        for namespace in [*hosts, self.name]:
            subprocess.run(["ip", "netns", "del", namespace], capture_output=True)


def _wait_for_line(process: subprocess.Popen[str], needle: str, timeout_s: float) -> None:
    """Wait until the process prints a line containing `needle`; keep draining its output."""
    seen: list[str] = []
    found = threading.Event()

    def drain() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            seen.append(line)
            if needle in line:
                found.set()

    threading.Thread(target=drain, daemon=True).start()
    if not found.wait(timeout_s):
        output = "".join(seen) or "(no output)"
        raise RuntimeError(f"switch did not report '{needle}' within {timeout_s:g} s:\n{output}")
