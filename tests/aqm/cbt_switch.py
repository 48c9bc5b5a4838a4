"""p4src/cbt.p4 on the dataplane in virtual time, with its per-class state read back."""

from dataclasses import dataclass
from pathlib import Path

from red_switch import OUT_PORT, install_range, routed_dataplane, u

from p4aqm.models.cbt import CbtConfig, CbtDecision, TrafficClass
from p4switch._dataplane import Dataplane
from programs import P4SRC, compile_program

# The marked class in these tests: UDP with DSCP EF (46), as a multimedia sender marks.
DSCP_EF = 46
IP_PROTO_TCP, IP_PROTO_UDP = 6, 17
DECISION_COUNTERS = {
    CbtDecision.MARK: "MyIngress.cbt_marks",
    CbtDecision.DROP_EARLY: "MyIngress.cbt_early_drops",
    CbtDecision.DROP_FORCED: "MyIngress.cbt_forced_drops",
    CbtDecision.DROP_THRESHOLD: "MyIngress.cbt_threshold_drops",
    CbtDecision.DROP_OVERFLOW: "MyIngress.cbt_overflow_drops",
}


def compile_cbt(out_dir: Path) -> bytes:
    return compile_program(P4SRC / "cbt.p4", out_dir).json_path.read_bytes()


def slot(traffic_class: TrafficClass) -> int:
    """The register and counter index of a class on OUT_PORT."""
    return OUT_PORT * 4 + traffic_class


def _install_class(dp: Dataplane, protocol: int, dscp: int | None, cls: TrafficClass) -> None:
    wildcard = [("ternary", bytes(4), bytes(4))] * 2 + [("ternary", bytes(2), bytes(2))] * 2
    dscp_key = ("ternary", u(dscp or 0, 1), u(0x3F if dscp is not None else 0, 1))
    keys = [
        ("exact", u(OUT_PORT, 2)),
        ("ternary", u(protocol, 1), u(0xFF, 1)),
        dscp_key,
        *wildcard,
    ]
    dp.table_add("MyIngress.cbt_class", keys, "MyIngress.cbt_set_class", [u(cls, 1)], 1)


def cbt_dataplane(bmv2_json: bytes, config: CbtConfig, rate_pps: float, seed: int) -> Dataplane:
    """Port 1 in, port 2 out under CBT: TCP is the TCP class, UDP with DSCP EF the marked
    class, and the table's default leaves everything else unmarked."""
    red = config.red
    dp = routed_dataplane(bmv2_json, seed)
    dp.table_add(
        "MyIngress.cbt_config",
        [("exact", u(OUT_PORT, 2))],
        "MyIngress.cbt_set_params",
        [
            u(red.k, 1),
            u(red.min_th, 4),
            u(red.ramp_end, 4),
            u(red.limit_pkts, 4),
            u(int(red.ecn), 1),
            u(config.marked_th, 4),
            u(config.unmarked_th, 4),
        ],
        0,
    )
    _install_class(dp, IP_PROTO_TCP, None, TrafficClass.TCP)
    _install_class(dp, IP_PROTO_UDP, DSCP_EF, TrafficClass.MARKED)
    install_range(dp, "MyIngress.cbt_ramp", "MyIngress.cbt_set_p_b", red.p_b_table)
    install_range(dp, "MyIngress.cbt_decay", "MyIngress.cbt_set_decay", red.decay_table)
    # The traffic manager's own queue is deeper than CBT's limit: only CBT drops.
    dp.set_queue(OUT_PORT, rate_pps=rate_pps, depth_packets=red.limit_pkts + 64)
    return dp


def _read(dp: Dataplane, name: str, index: int) -> int:
    return int.from_bytes(dp.register_read(name, index), "big")


@dataclass(frozen=True)
class ClassState:
    avg: int
    qlen: int
    idle_since_us: int


@dataclass(frozen=True)
class CbtState:
    port_qlen: int
    count: int  # TCP's RED
    q_r: int
    classes: dict[TrafficClass, ClassState]


def read_state(dp: Dataplane) -> CbtState:
    count = _read(dp, "cbt_count", OUT_PORT)
    classes = {
        c: ClassState(
            _read(dp, "cbt_avg", slot(c)),
            _read(dp, "cbt_qlen", slot(c)),
            _read(dp, "cbt_idle_since", slot(c)),
        )
        for c in TrafficClass
    }
    return CbtState(
        port_qlen=_read(dp, "cbt_port_qlen", OUT_PORT),
        # count is -1 in the model and 0xffffffff in the 32-bit register.
        count=count - (1 << 32) if count >> 31 else count,
        q_r=_read(dp, "cbt_q_r", OUT_PORT),
        classes=classes,
    )


def read_counters(dp: Dataplane) -> dict[tuple[CbtDecision, TrafficClass], int]:
    return {
        (decision, c): dp.counter_read(name, slot(c))[1]
        for decision, name in DECISION_COUNTERS.items()
        for c in TrafficClass
    }
