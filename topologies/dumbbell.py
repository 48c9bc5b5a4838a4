"""The dumbbell of the TCP evaluation suite (draft-irtf-iccrg-tcpeval) on `p4aqm switch`.

Two routers joined by the bottleneck (port BOTTLENECK_PORT on each); clients c1..cN on
the left router's ports 1..N, servers s1..sM on the right router's ports 1..M. Each
access port's one-way delay and rate are the router's link emulation on that port (a
delay line in both directions), the bottleneck's rate is the queue rate of each router's
bottleneck port, one per direction: this kernel has no netem. Every address, route and
static ARP entry is derived here; each router's P4Runtime state (routes, queues, links,
AQM) is a controller config, written to the run directory and applied by the controller.

    with Dumbbell(DumbbellSpec()) as net:
        net.host("c1").cmd("ping -c 3", net.ip("s3"))
        print(net.manifest)
"""

import dataclasses
import json
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

import yaml
from mininet.net import Mininet
from mininet.node import Host

from controller.config import load_config
from controller.session import apply_config
from topologies.p4switch import P4AqmSwitch

REPO = Path(__file__).resolve().parents[1]
BOTTLENECK_PORT = 100
LEFT, RIGHT = 1, 2
# The congestion controls the root namespace must allow, so that hosts may pick them.
BASE_CONGESTION_CONTROLS = ("reno", "cubic", "bbr")
OFFLOADS = ("tx", "rx", "sg", "tso", "gso", "gro")


@dataclass
class HostTcp:
    """A host's TCP settings, applied in its namespace and read back."""

    congestion_control: str = "cubic"
    sack: bool = True
    ecn: int = 0  # net.ipv4.tcp_ecn: 0 off, 1 request and accept, 2 accept only
    initcwnd: int | None = 10  # on the host's routes; None leaves the kernel's
    rmem_bytes: tuple[int, int, int] | None = None  # net.ipv4.tcp_rmem (min default max)
    wmem_bytes: tuple[int, int, int] | None = None  # net.ipv4.tcp_wmem
    mtu_bytes: int = 1500


@dataclass
class DumbbellSpec:
    left_delays_us: tuple[int, ...] = (0, 12_000, 25_000)
    right_delays_us: tuple[int, ...] = (2_000, 37_000, 75_000)
    access_rate_bps: int = 100_000_000
    bottleneck_rate_bps: int = 10_000_000
    bottleneck_delay_us: int = 0
    # Queue depth of each direction's bottleneck queue; None leaves the switch's default
    # (or, with an AQM, the controller's limit_pkts + 64).
    left_to_right_depth_pkts: int | None = 100
    right_to_left_depth_pkts: int | None = 100
    # An AQM config as in the controller's YAML (`aqm:` of a port), per direction.
    left_to_right_aqm: dict[str, Any] | None = None
    right_to_left_aqm: dict[str, Any] | None = None
    program: str = "l3_forward"  # build/PROGRAM.json and build/PROGRAM.p4info.txtpb
    build_dir: Path = REPO / "build"
    host_tcp: HostTcp = field(default_factory=HostTcp)
    host_tcp_by_name: dict[str, HostTcp] = field(default_factory=dict)
    name_prefix: str = "p4a"  # routers are PREFIXr1, PREFIXr2 (their ports: PREFIXr1-ethN)
    run_dir: Path | None = None  # controller configs, switch logs, manifest; temp if None


def _mac(side: int, port: int, last: int) -> str:
    return f"02:00:00:{side:02x}:{port:02x}:{last:02x}"


@dataclass
class HostPlan:
    name: str
    side: int
    port: int
    delay_us: int

    @property
    def ip(self) -> str:
        return f"10.{self.side}.{self.port}.1"

    @property
    def subnet(self) -> str:
        return f"10.{self.side}.{self.port}.0/24"

    @property
    def gateway(self) -> str:
        return f"10.{self.side}.{self.port}.254"

    @property
    def mac(self) -> str:
        return _mac(self.side, self.port, 0x01)

    @property
    def gateway_mac(self) -> str:
        return _mac(self.side, self.port, 0xFE)


def plan_hosts(spec: DumbbellSpec) -> list[HostPlan]:
    left = [HostPlan(f"c{i}", LEFT, i, d) for i, d in enumerate(spec.left_delays_us, 1)]
    right = [HostPlan(f"s{i}", RIGHT, i, d) for i, d in enumerate(spec.right_delays_us, 1)]
    return left + right


def router_config(spec: DumbbellSpec, side: int, grpc_addr: str, device_id: int) -> dict:
    """The controller config (controller/config.py) of the router on `side`."""
    other = RIGHT if side == LEFT else LEFT
    build = spec.build_dir.resolve()
    routes = []
    ports: dict[int, dict] = {}
    for host in plan_hosts(spec):
        if host.side != side:
            continue
        routes.append(
            {
                "prefix": host.subnet,
                "port": host.port,
                "dst_mac": host.mac,
                "src_mac": host.gateway_mac,
            }
        )
        ports[host.port] = {"link": {"delay_us": host.delay_us, "rate_bps": spec.access_rate_bps}}
    routes.append(
        {
            "prefix": f"10.{other}.0.0/16",
            "port": BOTTLENECK_PORT,
            "dst_mac": _mac(other, BOTTLENECK_PORT, 0xFE),
            "src_mac": _mac(side, BOTTLENECK_PORT, 0xFE),
        }
    )
    depth = spec.left_to_right_depth_pkts if side == LEFT else spec.right_to_left_depth_pkts
    aqm = spec.left_to_right_aqm if side == LEFT else spec.right_to_left_aqm
    queue: dict[str, int] = {"rate_bps": spec.bottleneck_rate_bps}
    if depth is not None:
        queue["depth_packets"] = depth
    bottleneck: dict[str, Any] = {
        "link": {"delay_us": spec.bottleneck_delay_us, "rate_bps": spec.bottleneck_rate_bps},
        "queue": queue,
    }
    if aqm is not None:
        bottleneck["aqm"] = aqm
    ports[BOTTLENECK_PORT] = bottleneck
    return {
        "switch": {"grpc_addr": grpc_addr, "device_id": device_id},
        "pipeline": {
            "p4info": str(build / f"{spec.program}.p4info.txtpb"),
            "bmv2_json": str(build / f"{spec.program}.json"),
        },
        "routes": routes,
        "ports": ports,
    }


def allow_congestion_controls(extra: list[str]) -> str:
    """Add reno, cubic, bbr (and `extra`) to the root namespace's allowed list; return it."""
    path = Path("/proc/sys/net/ipv4/tcp_allowed_congestion_control")
    allowed = path.read_text().split()
    wanted = [cc for cc in (*BASE_CONGESTION_CONTROLS, *extra) if cc not in allowed]
    if wanted:
        path.write_text(" ".join(allowed + wanted))
    return path.read_text().strip()


class Dumbbell:
    """Brings the dumbbell up on enter and always tears it down on exit."""

    def __init__(self, spec: DumbbellSpec | None = None) -> None:
        self.spec = spec or DumbbellSpec()
        self.plans = {plan.name: plan for plan in plan_hosts(self.spec)}
        self.net: Mininet | None = None
        self.routers: list[P4AqmSwitch] = []
        self.manifest: dict[str, Any] = {}
        self.run_dir = self.spec.run_dir or Path(tempfile.mkdtemp(prefix="p4aqm-dumbbell-"))

    # -- lookups
    def host(self, name: str) -> Host:
        assert self.net is not None
        return self.net.get(name)

    def ip(self, name: str) -> str:
        return self.plans[name].ip

    def clients(self) -> list[str]:
        return [p.name for p in self.plans.values() if p.side == LEFT]

    def servers(self) -> list[str]:
        return [p.name for p in self.plans.values() if p.side == RIGHT]

    def rtt_target_us(self, client: str, server: str) -> int:
        one_way = self.plans[client].delay_us + self.plans[server].delay_us
        return 2 * (one_way + self.spec.bottleneck_delay_us)

    def tcp_of(self, name: str) -> HostTcp:
        return self.spec.host_tcp_by_name.get(name, self.spec.host_tcp)

    # -- lifecycle
    def __enter__(self) -> "Dumbbell":
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def start(self) -> None:
        spec = self.spec
        for suffix in ("json", "p4info.txtpb"):
            path = spec.build_dir / f"{spec.program}.{suffix}"
            if not path.is_file():
                raise FileNotFoundError(f"{path}: no such file (run `make build`)")
        ccs = sorted({self.tcp_of(name).congestion_control for name in self.plans})
        allowed = allow_congestion_controls(ccs)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        net = self.net = Mininet(topo=None, build=False, controller=None)
        for side in (LEFT, RIGHT):
            name = f"{spec.name_prefix}r{side}"
            router = net.addSwitch(
                name, cls=P4AqmSwitch, device_id=side, log_path=self.run_dir / f"{name}.log"
            )
            self.routers.append(router)
        for plan in self.plans.values():
            host = net.addHost(plan.name, ip=f"{plan.ip}/24", mac=plan.mac)
            net.addLink(
                host,
                self.routers[plan.side - 1],
                port1=0,
                port2=plan.port,
                addr1=plan.mac,
                addr2=plan.gateway_mac,
            )
        net.addLink(
            self.routers[0],
            self.routers[1],
            port1=BOTTLENECK_PORT,
            port2=BOTTLENECK_PORT,
            addr1=_mac(LEFT, BOTTLENECK_PORT, 0xFE),
            addr2=_mac(RIGHT, BOTTLENECK_PORT, 0xFE),
        )
        net.build()
        for router in self.routers:
            for intf in router.intfList():
                _quiet_root_interface(intf.name)
        net.start()
        routers = {}
        for side, router in zip((LEFT, RIGHT), self.routers, strict=True):
            config = router_config(spec, side, router.grpc_addr, router.device_id)
            path = self.run_dir / f"{router.name}.yaml"
            path.write_text(yaml.safe_dump(config, sort_keys=False))
            apply_config(load_config(path))
            routers[router.name] = {
                "switch": "p4aqm",
                "grpc_addr": router.grpc_addr,
                "device_id": router.device_id,
                "pid": router.process.pid if router.process else None,
                "controller_config": str(path),
                "interfaces": {p: i.name for p, i in sorted(router.intfs.items())},
            }
        hosts = {name: self._configure_host(plan) for name, plan in self.plans.items()}
        self.manifest = {
            "topology": "dumbbell",
            "run_dir": str(self.run_dir),
            "mechanism": {
                "delay": "p4aqm switch link emulation (link.delay_us on each access port)",
                "rate": "p4aqm switch queue and link rate (gNMI), per bottleneck direction",
            },
            "root_tcp_allowed_congestion_control": allowed,
            "spec": json.loads(json.dumps(dataclasses.asdict(spec), default=str)),
            "routers": routers,
            "hosts": hosts,
            "pairs": [
                {"client": c, "server": s, "rtt_target_us": self.rtt_target_us(c, s)}
                for c in self.clients()
                for s in self.servers()
            ],
        }
        (self.run_dir / "manifest.json").write_text(json.dumps(self.manifest, indent=2))

    def _configure_host(self, plan: HostPlan) -> dict[str, Any]:
        host = self.host(plan.name)
        tcp = self.tcp_of(plan.name)
        dev = host.defaultIntf().name

        def run(command: str) -> str:
            out = host.cmd(f"{command} 2>&1; echo rc=$?").rstrip()
            text, _, rc = out.rpartition("rc=")
            if rc.strip() != "0":
                raise RuntimeError(f"{plan.name}: `{command}` failed: {text.strip()}")
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
        run(f"ip neigh replace {plan.gateway} lladdr {plan.gateway_mac} dev {dev} nud permanent")
        cwnd = f" initcwnd {tcp.initcwnd}" if tcp.initcwnd is not None else ""
        run(f"ip route replace {plan.subnet} dev {dev} proto kernel scope link src {plan.ip}{cwnd}")
        run(f"ip route replace default via {plan.gateway} dev {dev}{cwnd}")
        # read back
        readback: dict[str, Any] = {
            key: run(f"sysctl -n {key}").replace("\t", " ") for key in sysctls
        }
        keys = ("net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem")
        readback.update({k: run(f"sysctl -n {k}").replace("\t", " ") for k in keys})
        link = run(f"ip -o link show dev {dev}")
        routes = run("ip route show").splitlines()
        features = run(f"ethtool -k {dev}")
        default = next((r for r in routes if r.startswith("default")), "")
        initcwnd = re.search(r"initcwnd (\d+)", default)
        return {
            "ip": plan.ip,
            "mac": plan.mac,
            "interface": dev,
            "router_port": plan.port,
            "side": "left" if plan.side == LEFT else "right",
            "one_way_delay_us": plan.delay_us,
            "sysctl": readback,
            "congestion_control": readback["net.ipv4.tcp_congestion_control"],
            "sack": readback["net.ipv4.tcp_sack"] == "1",
            "ecn": int(readback["net.ipv4.tcp_ecn"]),
            "ipv6_disabled": readback["net.ipv6.conf.all.disable_ipv6"] == "1",
            "initcwnd": int(initcwnd.group(1)) if initcwnd else None,
            "mtu_bytes": int(re.search(r"mtu (\d+)", link).group(1)),
            "offloads": _offloads(features),
            "routes": routes,
            "neighbours": run("ip neigh show").splitlines(),
        }

    def stop(self) -> None:
        net, self.net = self.net, None
        names = [i.name for r in self.routers for i in r.intfList()]
        try:
            if net is not None:
                net.stop()
        finally:
            for router in self.routers:  # a switch whose stop() never ran
                if router.process is not None:
                    router.stop(deleteIntfs=False)
            for name in names:  # veth ends net.stop() did not remove
                subprocess.run(["ip", "link", "del", name], capture_output=True)
            self.routers = []


_FEATURE_NAMES = {
    "tx": "tx-checksumming",
    "rx": "rx-checksumming",
    "sg": "scatter-gather",
    "tso": "tcp-segmentation-offload",
    "gso": "generic-segmentation-offload",
    "gro": "generic-receive-offload",
}


def _offloads(features: str) -> dict[str, bool]:
    """`ethtool -k` output -> {short name: on?} for the offloads we turn off."""
    result = {}
    for short, long in _FEATURE_NAMES.items():
        match = re.search(rf"^{long}: (on|off)", features, re.MULTILINE)
        result[short] = bool(match and match.group(1) == "on")
    return result


def _quiet_root_interface(name: str) -> None:
    """A router's veth end lives in the root namespace: no IPv6 chatter, no offloads."""
    subprocess.run(["sysctl", "-qw", f"net.ipv6.conf.{name}.disable_ipv6=1"], capture_output=True)
    subprocess.run(
        ["ethtool", "-K", name, *[w for o in OFFLOADS for w in (o, "off")]],
        capture_output=True,
    )
