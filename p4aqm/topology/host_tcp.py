"""A host's TCP settings: applied in its namespace, then read back for the manifest.

New namespaces inherit the root namespace's congestion control (BBR on these machines),
and a namespace may only pick one listed in the root's tcp_allowed_congestion_control:
allow_congestion_controls() adds those the hosts ask for before they are set."""

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mininet.node import Host
from pydantic import ConfigDict

BASE_CONGESTION_CONTROLS = ("reno", "cubic", "bbr")
OFFLOADS = ("tx", "rx", "sg", "tso", "gso", "gro")
_FEATURE_NAMES = {
    "tx": "tx-checksumming",
    "rx": "rx-checksumming",
    "sg": "scatter-gather",
    "tso": "tcp-segmentation-offload",
    "gso": "generic-segmentation-offload",
    "gro": "generic-receive-offload",
}
# Linux's largest retransmission timeout (TCP_RTO_MAX): a least one above it means nothing.
RTO_MAX_MS = 120_000
_ALLOWED = Path("/proc/sys/net/ipv4/tcp_allowed_congestion_control")
_AVAILABLE = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")


@dataclass
class HostTcp:
    """A host's TCP settings, applied in its namespace and read back."""

    __pydantic_config__ = ConfigDict(extra="forbid")  # topology files: unknown keys are errors

    congestion_control: str = "cubic"
    sack: bool = True
    ecn: int = 0  # net.ipv4.tcp_ecn: 0 off, 1 request and accept, 2 accept only
    initcwnd: int | None = 10  # on the host's routes; None leaves the kernel's
    # The least retransmission timeout, on the host's routes; None leaves Linux's 200 ms
    # (TCP_RTO_MIN). Stacks of the 1990s waited about 1 s (RFC 6298 asks for 1 s).
    rto_min_ms: int | None = None
    rmem_bytes: tuple[int, int, int] | None = None  # net.ipv4.tcp_rmem (min default max)
    wmem_bytes: tuple[int, int, int] | None = None  # net.ipv4.tcp_wmem
    mtu_bytes: int = 1500

    def check(self, where: str) -> None:
        if self.ecn not in (0, 1, 2):
            raise ValueError(f"{where}.ecn: {self.ecn} is not 0, 1 or 2 (net.ipv4.tcp_ecn)")
        if self.initcwnd is not None and not 1 <= self.initcwnd <= 1000:
            raise ValueError(f"{where}.initcwnd: {self.initcwnd} is not in 1..1000 segments")
        if self.rto_min_ms is not None and not 1 <= self.rto_min_ms <= RTO_MAX_MS:
            raise ValueError(f"{where}.rto_min_ms: {self.rto_min_ms} is not in 1..{RTO_MAX_MS} ms")
        if not 68 <= self.mtu_bytes <= 9000:
            raise ValueError(f"{where}.mtu_bytes: {self.mtu_bytes} is not in 68..9000")
        for name in ("rmem_bytes", "wmem_bytes"):
            value = getattr(self, name)
            if value is not None and not (len(value) == 3 and 0 < value[0] <= value[1] <= value[2]):
                raise ValueError(f"{where}.{name}: {value} is not (min <= default <= max) > 0")


def allow_congestion_controls(wanted: list[str]) -> str:
    """Add reno, cubic, bbr and `wanted` to the root namespace's allowed list; return it.
    A name the kernel does not offer is an error naming it and what it offers."""
    for cc in wanted:
        if cc not in _AVAILABLE.read_text().split():
            # The kernel may have it as a module it has not loaded yet.
            subprocess.run(["modprobe", "-q", f"tcp_{cc}"], capture_output=True)
        available = _AVAILABLE.read_text().split()
        if cc not in available:
            raise ValueError(f"congestion control {cc!r}: this kernel offers {' '.join(available)}")
    allowed = _ALLOWED.read_text().split()
    missing = [cc for cc in (*BASE_CONGESTION_CONTROLS, *wanted) if cc not in allowed]
    if missing:
        wanted_list = " ".join(allowed + sorted(set(missing), key=missing.index))
        try:
            _ALLOWED.write_text(wanted_list)
        except PermissionError:
            # The list is the root namespace's; a network namespace can only read it.
            raise ValueError(
                f"congestion control {', '.join(missing)}: not in"
                f" net.ipv4.tcp_allowed_congestion_control ({' '.join(allowed)}), which only"
                " the root network namespace can change; run there:"
                f" sysctl -w net.ipv4.tcp_allowed_congestion_control='{wanted_list}'"
            ) from None
    return _ALLOWED.read_text().strip()


def configure_host(
    host: Host, tcp: HostTcp, ip: str, subnet: str, gateway: str, gateway_mac: str
) -> dict[str, Any]:
    """Apply `tcp`, routes (with initcwnd and rto_min) and static ARP to the gateway in the host's
    namespace; turn offloads and IPv6 off; return what reads back."""
    dev = host.defaultIntf().name

    def run(command: str) -> str:
        out = host.cmd(f"{command} 2>&1; echo rc=$?").rstrip()
        text, _, rc = out.rpartition("rc=")
        if rc.strip() != "0":
            raise RuntimeError(f"{host.name}: `{command}` failed: {text.strip()}")
        return text.strip()

    sysctls = {
        "net.ipv6.conf.all.disable_ipv6": "1",
        "net.ipv6.conf.default.disable_ipv6": "1",
        "net.ipv4.tcp_congestion_control": tcp.congestion_control,
        "net.ipv4.tcp_sack": "1" if tcp.sack else "0",
        "net.ipv4.tcp_ecn": str(tcp.ecn),
    }
    if tcp.rmem_bytes is not None:
        sysctls["net.ipv4.tcp_rmem"] = " ".join(map(str, tcp.rmem_bytes))
    if tcp.wmem_bytes is not None:
        sysctls["net.ipv4.tcp_wmem"] = " ".join(map(str, tcp.wmem_bytes))
    for key, value in sysctls.items():
        run(f"sysctl -qw {key}='{value}'")
    run(f"ip link set dev {dev} mtu {tcp.mtu_bytes}")
    run(f"ethtool -K {dev} {' '.join(f'{o} off' for o in OFFLOADS)}")
    run(f"ip neigh replace {gateway} lladdr {gateway_mac} dev {dev} nud permanent")
    metrics = f" initcwnd {tcp.initcwnd}" if tcp.initcwnd is not None else ""
    metrics += f" rto_min {tcp.rto_min_ms}ms" if tcp.rto_min_ms is not None else ""
    run(f"ip route replace {subnet} dev {dev} proto kernel scope link src {ip}{metrics}")
    run(f"ip route replace default via {gateway} dev {dev}{metrics}")

    keys = (*sysctls, "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem")
    readback = {key: run(f"sysctl -n {key}").replace("\t", " ") for key in dict.fromkeys(keys)}
    link = run(f"ip -o link show dev {dev}")
    routes = run("ip route show").splitlines()
    default = next((r for r in routes if r.startswith("default")), "")
    initcwnd = re.search(r"initcwnd (\d+)", default)
    mtu = re.search(r"mtu (\d+)", link)
    return {
        "interface": dev,
        "sysctl": readback,
        "congestion_control": readback["net.ipv4.tcp_congestion_control"],
        "sack": readback["net.ipv4.tcp_sack"] == "1",
        "ecn": int(readback["net.ipv4.tcp_ecn"]),
        "ipv6_disabled": readback["net.ipv6.conf.all.disable_ipv6"] == "1",
        "initcwnd": int(initcwnd.group(1)) if initcwnd else None,
        "rto_min_ms": route_rto_min_ms(default),
        "mtu_bytes": int(mtu.group(1)) if mtu else None,
        "offloads": offloads_on(run(f"ethtool -k {dev}")),
        "routes": routes,
        "neighbours": run("ip neigh show").splitlines(),
    }


def offloads_on(features: str) -> dict[str, bool]:
    """`ethtool -k` output -> {short name: on?} for the offloads we turn off."""
    result = {}
    for short, long in _FEATURE_NAMES.items():
        match = re.search(rf"^{long}: (on|off)", features, re.MULTILINE)
        result[short] = bool(match and match.group(1) == "on")
    return result


def route_rto_min_ms(route: str) -> int | None:
    """A route's rto_min as `ip route show` prints it ("rto_min lock 300ms", "... 1.5s"),
    in ms; None without one."""
    match = re.search(r"rto_min (?:lock )?(\d+(?:\.\d+)?)(ms|s)\b", route)
    if match is None:
        return None
    return round(float(match.group(1)) * (1000 if match.group(2) == "s" else 1))
