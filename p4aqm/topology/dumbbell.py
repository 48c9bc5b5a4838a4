"""The dumbbell of the TCP evaluation suite (draft-irtf-iccrg-tcpeval) on `p4aqm switch`.

Two routers joined by the bottleneck (port BOTTLENECK_PORT on each); clients c1..cN on
the left router's ports 1..N, servers s1..sM on the right router's ports 1..M. Each
access port's one-way delay and rate are the router's link emulation on that port (a
delay line in both directions), the bottleneck's rate is the queue rate of each router's
bottleneck port, one per direction: this kernel has no netem. Every address, route and
static ARP entry is derived here; each router's P4Runtime state (routes, queues, links,
AQM) is a typed controller config (ControllerConfig), applied through the router's
handle (p4aqm.controller.Router), which stays open for the run.

    with Dumbbell(DumbbellSpec(right_to_left_aqm=RedConfig(min_th=30, max_th=90))) as net:
        net.host("c1").cmd("ping -c 3", net.ip("s3"))
        print(net.router(RIGHT).port_state(BOTTLENECK_PORT))
"""

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np
from mininet.net import Mininet
from mininet.node import Host
from pydantic import BaseModel, ConfigDict, TypeAdapter

from p4aqm.controller.config import (
    ControllerConfig,
    LinkConfig,
    PipelineFiles,
    PortConfig,
    QueueConfig,
    Route,
    SwitchTarget,
)
from p4aqm.controller.disciplines import AqmConfig, priority_queues
from p4aqm.controller.router import Router
from p4aqm.topology.cpu_latency import CpuLatencyLimit, check_limit
from p4aqm.topology.cpu_placement import RoutersCpu, check_cpu, routers_cpu
from p4aqm.topology.host_tcp import OFFLOADS, HostTcp, allow_congestion_controls, configure_host
from p4aqm.topology.netem import netem_delay_command, require_netem
from p4aqm.topology.p4switch import SIMPLE_SWITCH_GRPC, Bmv2Switch, P4AqmSwitch
from p4aqm.topology.registry import (
    OwnedProcess,
    TopologyRecord,
    current_netns,
    netns_inode,
    records,
)
from p4aqm.topology.registry import clean as clean_record

REPO = Path(__file__).resolve().parents[2]
BOTTLENECK_PORT = 100
LEFT, RIGHT = 1, 2
SWITCH_CLASSES = {"p4aqm": P4AqmSwitch, "bmv2": Bmv2Switch}
MAX_HOSTS_PER_SIDE = BOTTLENECK_PORT - 1
# A bottleneck direction's queue: without an AQM, 100 packets of drop-tail (the TCP
# evaluation suite's); with one, unset gives the controller's limit_pkts + 64.
DROPTAIL_DEPTH_PKTS = 100


@dataclass
class DumbbellSpec:
    __pydantic_config__ = ConfigDict(extra="forbid")  # topology files: unknown keys are errors

    left_delays_us: tuple[int, ...] = (0, 12_000, 25_000)
    right_delays_us: tuple[int, ...] = (2_000, 37_000, 75_000)
    access_rate_bps: int = 100_000_000
    bottleneck_rate_bps: int = 10_000_000
    bottleneck_delay_us: int = 0
    # Queue depth of each direction's bottleneck queue. Unset: DROPTAIL_DEPTH_PKTS, or with
    # an AQM the controller's limit_pkts + 64; set, it must exceed the AQM's limit.
    left_to_right_depth_pkts: int | None = None
    right_to_left_depth_pkts: int | None = None
    # The AQM of each direction's bottleneck queue (the controller's typed configs, which
    # the YAML's `aqm:` of a port also gives).
    left_to_right_aqm: AqmConfig | None = None
    right_to_left_aqm: AqmConfig | None = None
    # Two-way traffic congests both directions: the client -> server queue then runs
    # right_to_left_aqm too (a sweep over it sets both); left_to_right_aqm stays unset.
    same_aqm_both_ways: bool = False
    program: str = "l3_forward"  # build/PROGRAM.json and build/PROGRAM.p4info.txtpb
    build_dir: Path = REPO / "build"
    host_tcp: HostTcp = field(default_factory=HostTcp)
    host_tcp_by_name: dict[str, HostTcp] = field(default_factory=dict)
    name_prefix: str = "p4a"  # routers are PREFIXr1, PREFIXr2 (their ports: PREFIXr1-ethN)
    run_dir: Path | None = None  # controller configs, switch logs, manifest; temp if None
    switch: str = "p4aqm"  # or "bmv2": simple_switch_grpc, its delays from netem
    # SCHED_FIFO priority of each p4aqm router's event loop (None: normal scheduling).
    # Normal threads wait behind the hosts' stacks and generators on a small machine:
    # measured on 2 cores, a demo point's p99 departure lateness was 397-459 µs at
    # normal priority and 101-133 µs at priority 50. BMv2 has no such option.
    router_realtime_priority: int | None = 50
    # The CPU both routers' processes are held to (taskset): "auto" puts them on one CPU up
    # to 40 Mbit/s at the bottleneck, where each costs about a fifth less than apart
    # (p4aqm/topology/cpu_placement.py); an int names the CPU; None leaves them to the
    # scheduler.
    routers_cpu: RoutersCpu = "auto"
    # The longest an idle CPU may take to wake while the dumbbell runs (µs, Linux's CPU
    # latency QoS): 0 keeps idle CPUs polling rather than halting, which lowered the
    # routers' lateness and CPU on the lab's VM (figures in p4aqm/topology/cpu_latency.py);
    # None leaves the machine's idle states alone.
    cpu_latency_us: int | None = 0
    # BMv2 queue rates are in packets/s: bit/s are converted at this frame size.
    bmv2_packet_bytes: int = 1514
    # How the access delays were chosen, saved with them in the manifest.
    delay_layout: dict[str, Any] = field(default_factory=lambda: {"kind": "tcpeval"})

    @classmethod
    def uniform_rtts(
        cls,
        clients: int = 10,
        servers: int = 3,
        rtt_min_us: int = 7_000,
        rtt_max_us: int = 137_000,
        seed: int = 1,
        **params: Any,  # noqa: ANN401 (the other DumbbellSpec fields)
    ) -> "DumbbellSpec":
        """Christiansen et al.'s layout: each client's RTT drawn uniform in
        [rtt_min_us, rtt_max_us] (one-way delay half of it on its access link); servers
        have no access delay, so a client's RTT is the same to every server."""
        if not 0 <= rtt_min_us <= rtt_max_us:
            raise ValueError(
                f"rtt_min_us {rtt_min_us}, rtt_max_us {rtt_max_us}: need 0 <= min <= max"
            )
        rtts = np.random.default_rng(seed).uniform(rtt_min_us, rtt_max_us, clients)
        layout = {"kind": "uniform", "rtt_min_us": rtt_min_us, "rtt_max_us": rtt_max_us}
        return cls(
            left_delays_us=tuple(int(round(r / 2)) for r in rtts),
            right_delays_us=(0,) * servers,
            delay_layout={**layout, "seed": seed},
            **params,
        )

    def check(self) -> None:
        """A ValueError naming the first field that cannot be built."""
        if self.switch not in SWITCH_CLASSES:
            raise ValueError(f"switch: {self.switch!r} is not one of {', '.join(SWITCH_CLASSES)}")
        for side in ("left_delays_us", "right_delays_us"):
            delays = getattr(self, side)
            if not 1 <= len(delays) <= MAX_HOSTS_PER_SIDE:
                raise ValueError(f"{side}: {len(delays)} hosts; give 1..{MAX_HOSTS_PER_SIDE}")
            if any(d < 0 for d in delays):
                raise ValueError(f"{side}: {delays} has a negative delay")
        for name in ("access_rate_bps", "bottleneck_rate_bps", "bmv2_packet_bytes"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name}: {getattr(self, name)} is not positive")
        priority = self.router_realtime_priority
        if priority is not None and not 1 <= priority <= 99:
            raise ValueError(f"router_realtime_priority: {priority} is not 1..99 (SCHED_FIFO)")
        cpu = self.routers_cpu
        if isinstance(cpu, int) and not isinstance(cpu, bool) and cpu >= 0:
            check_cpu(cpu)
        elif cpu not in (None, "auto"):
            raise ValueError(f"routers_cpu: {cpu!r} is not a CPU number, auto or null")
        check_limit(self.cpu_latency_us)
        if self.bottleneck_delay_us < 0:
            raise ValueError(f"bottleneck_delay_us: {self.bottleneck_delay_us} is negative")
        if self.same_aqm_both_ways and self.left_to_right_aqm is not None:
            raise ValueError(
                "left_to_right_aqm: give none with same_aqm_both_ways (it runs right_to_left_aqm)"
            )
        for direction in ("left_to_right", "right_to_left"):
            depth, aqm = getattr(self, f"{direction}_depth_pkts"), getattr(self, f"{direction}_aqm")
            if depth is not None and depth <= 0:
                raise ValueError(f"{direction}_depth_pkts: {depth} is not positive")
            if aqm is None:
                continue
            if not isinstance(aqm, BaseModel):
                # A mapping is validated by spec_from_mapping; here only models arrive.
                raise ValueError(
                    f"{direction}_aqm: {aqm!r} is not a discipline's config: give one of"
                    " p4aqm.controller's (RedConfig(...), ...), or build the spec with"
                    " spec_from_mapping"
                )
            if depth is not None and depth <= aqm.limit_pkts:
                raise ValueError(
                    f"{direction}_depth_pkts: {depth} must exceed the AQM's limit_pkts"
                    f" ({aqm.limit_pkts}),"
                    " so that the AQM's own limit binds first; leave it unset for limit + 64"
                )
        self.host_tcp.check("host_tcp")
        hosts = {p.name for p in plan_hosts(self)}
        for name, tcp in self.host_tcp_by_name.items():
            if name not in hosts:
                raise ValueError(f"host_tcp_by_name: no host {name!r} (hosts: {sorted(hosts)})")
            tcp.check(f"host_tcp_by_name[{name}]")

    def congestion_controls(self) -> list[str]:
        """Every congestion control the hosts ask for, each once."""
        tcps = [self.host_tcp, *self.host_tcp_by_name.values()]
        return sorted({tcp.congestion_control for tcp in tcps})

    def aqm_of(self, side: int) -> AqmConfig | None:
        """The AQM of the bottleneck queue of the router on `side` (its direction's)."""
        if side == LEFT and not self.same_aqm_both_ways:
            return self.left_to_right_aqm
        return self.right_to_left_aqm

    def program_of(self, side: int) -> str:
        """Each router runs its bottleneck direction's AQM program, or `program`."""
        aqm = self.aqm_of(side)
        return aqm.discipline if aqm is not None else self.program

    def to_json(self) -> dict[str, Any]:
        """The spec as the manifest records it."""
        return TypeAdapter(DumbbellSpec).dump_python(self, mode="json")


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


def _route(prefix: str, port: int, dst_mac: str, src_mac: str) -> Route:
    return Route.model_validate(
        {"prefix": prefix, "port": port, "dst_mac": dst_mac, "src_mac": src_mac}
    )


def router_config(spec: DumbbellSpec, side: int, router: P4AqmSwitch) -> ControllerConfig:
    """The controller config of the router on `side`. On BMv2 the links carry only
    their rates (its queues'); netem gives the delays."""
    other = RIGHT if side == LEFT else LEFT
    build = spec.build_dir.resolve()
    emulates_delay = spec.switch == "p4aqm"

    def link(delay_us: int, rate_bps: int) -> LinkConfig:
        return LinkConfig(delay_us=delay_us if emulates_delay else None, rate_bps=rate_bps)

    routes, ports = [], {}
    for host in plan_hosts(spec):
        if host.side == side:
            routes.append(_route(host.subnet, host.port, host.mac, host.gateway_mac))
            ports[host.port] = PortConfig(link=link(host.delay_us, spec.access_rate_bps))
    routes.append(
        _route(
            f"10.{other}.0.0/16",
            BOTTLENECK_PORT,
            _mac(other, BOTTLENECK_PORT, 0xFE),
            _mac(side, BOTTLENECK_PORT, 0xFE),
        )
    )
    depth = spec.left_to_right_depth_pkts if side == LEFT else spec.right_to_left_depth_pkts
    aqm = spec.aqm_of(side)
    depth = DROPTAIL_DEPTH_PKTS if depth is None and aqm is None else depth
    # Both routers emulate the bottleneck link, and a port's link delays its packets both
    # ways (arrivals and departures, p4aqm/switch/links): each router takes half the
    # one-way delay, so a packet crossing the link waits it once.
    half_us = spec.bottleneck_delay_us // 2
    ports[BOTTLENECK_PORT] = PortConfig(
        link=link(
            half_us if side == LEFT else spec.bottleneck_delay_us - half_us,
            spec.bottleneck_rate_bps,
        ),
        queue=QueueConfig(rate_bps=spec.bottleneck_rate_bps, depth_pkts=depth),
        aqm=aqm,
    )
    switch = SwitchTarget(grpc_addr=router.grpc_addr, device_id=router.device_id)
    if isinstance(router, Bmv2Switch):
        switch = switch.model_copy(
            update={"thrift_port": router.thrift_port, "bmv2_packet_bytes": spec.bmv2_packet_bytes}
        )
    program = spec.program_of(side)
    pipeline = PipelineFiles(
        p4info=build / f"{program}.p4info.txtpb", bmv2_json=build / f"{program}.json"
    )
    return ControllerConfig(switch=switch, pipeline=pipeline, routes=routes, ports=ports)


class Dumbbell:
    """Brings the dumbbell up on enter and always tears it down on exit."""

    def __init__(self, spec: DumbbellSpec | None = None) -> None:
        self.spec = spec or DumbbellSpec()
        self.plans = {plan.name: plan for plan in plan_hosts(self.spec)}
        self.net: Mininet | None = None
        self.routers: list[P4AqmSwitch] = []
        self.routers_cpu: int | None = None  # the CPU they are held to, once built
        self.cpu_latency = CpuLatencyLimit(self.spec.cpu_latency_us)
        # The control of each side's router, open from start to stop.
        self.handles: dict[int, Router] = {}
        self.manifest: dict[str, Any] = {}
        self.run_dir = self.spec.run_dir or Path(tempfile.mkdtemp(prefix="p4aqm-dumbbell-"))
        self.record: TopologyRecord | None = None

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

    def router(self, side: int) -> Router:
        """The handle of the router on `side` (LEFT or RIGHT): apply configs, read its
        ports, record its queue monitor."""
        if side not in self.handles:
            raise RuntimeError(f"no router on side {side}: the dumbbell is not up")
        return self.handles[side]

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

    def _check(self) -> None:
        spec = self.spec
        spec.check()
        for side in (LEFT, RIGHT):
            for suffix in ("json", "p4info.txtpb"):
                path = spec.build_dir / f"{spec.program_of(side)}.{suffix}"
                if not path.is_file():
                    raise FileNotFoundError(f"{path}: no such file (run `make build`)")
        delays = [p.delay_us for p in self.plans.values()] + [spec.bottleneck_delay_us]
        if spec.switch == "bmv2" and any(delays):
            require_netem("--switch bmv2 with link delays")
        if spec.switch == "bmv2" and shutil.which(SIMPLE_SWITCH_GRPC) is None:
            raise FileNotFoundError(f"--switch bmv2: {SIMPLE_SWITCH_GRPC} is not on PATH")

    def _register(self) -> None:
        """Write the record `p4aqm clean` reads before anything exists; a record of the
        same name whose owner is gone is a killed run's: clean it first."""
        spec = self.spec
        netns = current_netns()
        for old in records():
            if old.name != spec.name_prefix or old.netns != netns:
                continue
            if old.owner.alive():
                raise RuntimeError(
                    f"a topology named {spec.name_prefix!r} is running (pid {old.owner.pid},"
                    f" {old.run_dir}): give another name_prefix, or run `p4aqm clean`"
                )
            clean_record(old)
        owner = OwnedProcess.of(os.getpid(), "the process that built the topology")
        assert owner is not None
        ports = [p.port for p in self.plans.values()]
        interfaces = [f"{spec.name_prefix}r{s}-eth{BOTTLENECK_PORT}" for s in (LEFT, RIGHT)]
        interfaces += [
            f"{spec.name_prefix}r{p.side}-eth{port}"
            for p, port in zip(self.plans.values(), ports, strict=True)
        ]
        self.record = TopologyRecord(
            spec.name_prefix, owner, str(self.run_dir), interfaces, netns=netns
        )
        self.record.save()

    def start(self) -> None:
        self._check()
        ccs = sorted({self.tcp_of(name).congestion_control for name in self.plans})
        allowed = allow_congestion_controls(ccs)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self._register()
        self.cpu_latency.hold()
        self._build()
        if self.spec.switch == "bmv2":
            self._netem_delays()
        routers = self._configure_routers()
        hosts = self._configure_hosts()
        self._write_manifest(allowed, routers, hosts)

    def _build(self) -> None:
        """The Mininet network: routers, hosts, links; started, with each switch's
        process in the registry."""
        spec, record = self.spec, self.record
        assert record is not None
        net = self.net = Mininet(topo=None, build=False, controller=None)
        self.routers_cpu = routers_cpu(spec.routers_cpu, spec.bottleneck_rate_bps)
        for side in (LEFT, RIGHT):
            name = f"{spec.name_prefix}r{side}"
            self.routers.append(
                net.addSwitch(
                    name,
                    cls=SWITCH_CLASSES[spec.switch],
                    device_id=side,
                    log_path=self.run_dir / f"{name}.log",
                    realtime_priority=spec.router_realtime_priority,
                    priority_queues=priority_queues(spec.aqm_of(side)),
                    cpu=self.routers_cpu,
                )
            )
        for plan in self.plans.values():
            host = net.addHost(plan.name, ip=f"{plan.ip}/24", mac=plan.mac)
            record.namespaces[plan.name] = netns_inode(host.pid) or 0
            router = self.routers[plan.side - 1]
            net.addLink(host, router, port1=0, port2=plan.port, addr1=plan.mac,
                        addr2=plan.gateway_mac)  # fmt: skip
        record.save()
        net.addLink(self.routers[0], self.routers[1], port1=BOTTLENECK_PORT,
                    port2=BOTTLENECK_PORT, addr1=_mac(LEFT, BOTTLENECK_PORT, 0xFE),
                    addr2=_mac(RIGHT, BOTTLENECK_PORT, 0xFE))  # fmt: skip
        net.build()
        for router in self.routers:
            for intf in router.intfList():
                _quiet_root_interface(intf.name)
        net.start()
        for router in self.routers:
            if router.process is not None:
                owned = OwnedProcess.of(router.process.pid, f"{spec.switch} switch {router.name}")
                record.processes += [owned] if owned else []
        record.save()

    def _configure_routers(self) -> dict[str, dict[str, Any]]:
        """Each router's config applied through a handle kept for the run; the
        manifest's record of each."""
        spec = self.spec
        routers = {}
        for side, router in zip((LEFT, RIGHT), self.routers, strict=True):
            config = router_config(spec, side, router)
            handle = Router.of(config)
            self.handles[side] = handle
            handle.open()
            changes = handle.apply(config)
            routers[router.name] = {
                "switch": spec.switch,
                "program": spec.program_of(side),
                "grpc_addr": router.grpc_addr,
                "device_id": router.device_id,
                "pid": router.process.pid if router.process else None,
                "cpu": self.routers_cpu,
                "config": config.model_dump(mode="json"),
                "applied": str(changes),
                "interfaces": {p: i.name for p, i in sorted(router.intfs.items())},
            }
        return routers

    def _configure_hosts(self) -> dict[str, dict[str, Any]]:
        hosts = {}
        for name, plan in self.plans.items():
            readback = configure_host(self.host(name), self.tcp_of(name), plan.ip, plan.subnet,
                                      plan.gateway, plan.gateway_mac)  # fmt: skip
            hosts[name] = {
                "ip": plan.ip,
                "mac": plan.mac,
                "router_port": plan.port,
                "side": "left" if plan.side == LEFT else "right",
                "one_way_delay_us": plan.delay_us,
                **readback,
            }
        return hosts

    def _write_manifest(
        self, allowed: list[str], routers: dict[str, Any], hosts: dict[str, Any]
    ) -> None:
        spec = self.spec
        self.manifest = {
            "topology": "dumbbell",
            "run_dir": str(self.run_dir),
            "switch": spec.switch,
            "mechanism": self._mechanism(),
            "delay_layout": spec.delay_layout,
            "root_tcp_allowed_congestion_control": allowed,
            "spec": spec.to_json(),
            "routers": routers,
            "hosts": hosts,
            "pairs": [
                {"client": c, "server": s, "rtt_target_us": self.rtt_target_us(c, s)}
                for c in self.clients()
                for s in self.servers()
            ],
        }
        (self.run_dir / "manifest.json").write_text(json.dumps(self.manifest, indent=2))
        if spec.delay_layout.get("kind") == "uniform":
            drawn = ", ".join(f"{n} {p.delay_us / 1000:.1f}" for n, p in self.plans.items())
            print(f"dumbbell: one-way access delays drawn ({spec.delay_layout}), ms: {drawn}")

    def _mechanism(self) -> dict[str, str]:
        if self.spec.switch == "bmv2":
            return {
                "delay": "netem on both ends of each delayed link",
                "rate": "BMv2 queue rate (simple_switch_CLI set_queue_rate, packets/s"
                f" at {self.spec.bmv2_packet_bytes}-byte frames)",
            }
        return {
            "delay": "p4aqm switch link emulation (link.delay_us on each port)",
            "rate": "p4aqm switch queue and link rate (gNMI), per bottleneck direction",
        }

    def _netem_delays(self) -> None:
        """BMv2 has no link emulation: netem delays both directions of each link."""
        for plan in self.plans.values():
            if plan.delay_us == 0:
                continue
            host = self.host(plan.name)
            router_end = host.defaultIntf().link.intf2.name
            host.cmd(" ".join(netem_delay_command(host.defaultIntf().name, plan.delay_us)))
            subprocess.run(netem_delay_command(router_end, plan.delay_us), check=True)
        if self.spec.bottleneck_delay_us:
            for router in self.routers:
                name = router.intfs[BOTTLENECK_PORT].name
                command = netem_delay_command(name, self.spec.bottleneck_delay_us)
                subprocess.run(command, check=True)

    def stop(self) -> None:
        handles, self.handles = self.handles, {}
        for side, handle in handles.items():
            try:
                handle.close()
            except Exception as exc:  # noqa: BLE001 - the teardown must go on
                print(f"dumbbell: closing the control of router {side}: {exc}")
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
            self.cpu_latency.release()
            if self.record is not None:
                clean_record(self.record)  # whatever is left: processes run in the hosts
                self.record = None


def _quiet_root_interface(name: str) -> None:
    """A router's veth end lives in the root namespace: no IPv6 chatter, no offloads."""
    subprocess.run(["sysctl", "-qw", f"net.ipv6.conf.{name}.disable_ipv6=1"], capture_output=True)
    subprocess.run(
        ["ethtool", "-K", name, *[w for o in OFFLOADS for w in (o, "off")]],
        capture_output=True,
    )
