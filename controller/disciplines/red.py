"""RED on a port (p4src/red.p4): its config, and the table entries the model computes.

The data plane cannot divide or raise to a power, so everything it needs arrives as
integers: the thresholds in 2^-16 packets, w_q as a shift, and two range tables, p_b
over the average and the idle decay over the idle time (p4aqm/models/red.py).
"""

from typing import Literal

import finsy as fy
from pydantic import Field, model_validator

from controller.sampler import Probe
from controller.schema import StrictModel
from p4aqm.models.fixed_point import AVG_FRAC_BITS
from p4aqm.models.red import RangeEntry, RedParams
from p4aqm.models.red import RedConfig as RedTables


class RedSettings(StrictModel):
    """What every RED-family discipline takes, in packets, probabilities and seconds."""

    min_th: float = Field(ge=0)
    max_th: float = Field(gt=0)
    max_p: float = Field(gt=0, le=1)
    w_q: float = Field(default=1 / 512, gt=0, lt=1)
    qlen: int = Field(default=1000, ge=1)
    # Typical transmission time of a packet: the idle-decay clock (1500 B at 10 Mbit/s).
    mean_pkt_time_s: float = Field(default=0.0012, gt=0)

    def red_params(self, gentle: bool = False, ecn: bool = False) -> RedParams:
        return RedParams(
            min_th_pkts=self.min_th,
            max_th_pkts=self.max_th,
            max_p=self.max_p,
            w_q=self.w_q,
            qlen_pkts=self.qlen,
            gentle=gentle,
            ecn=ecn,
            idle_pkt_time_us=self.mean_pkt_time_s * 1e6,
        )


class RedConfig(RedSettings):
    """RED on a port's queue (p4src/red.p4)."""

    discipline: Literal["red"]
    gentle: bool = False
    ecn: bool = False

    @model_validator(mode="after")
    def _valid_red(self) -> "RedConfig":
        self.params()  # the model's own checks, reported at this field
        return self

    def probes(self) -> list[Probe]:
        """What the sampler reads for this port: occupancy, average, marks and drops."""
        return [
            Probe("qlen_pkts", "register", "red_qlen", digest="qlen"),
            Probe("avg_pkts", "register", "red_avg", 2.0**-AVG_FRAC_BITS, digest="avg"),
            Probe("marks", "counter", "MyIngress.red_marks"),
            Probe("early_drops", "counter", "MyIngress.red_early_drops"),
            Probe("forced_drops", "counter", "MyIngress.red_forced_drops"),
            Probe("overflow_drops", "counter", "MyIngress.red_overflow_drops"),
        ]

    def entries(self, port: int) -> list[fy.P4TableEntry]:
        return red_entries(port, self)

    def params(self) -> RedParams:
        return self.red_params(self.gentle, self.ecn)


PORT_KEY = "standard_metadata.egress_spec"
# Range tables need a priority in P4Runtime; their ranges never overlap, so one will do.
RANGE_PRIORITY = 1


def port_entry(table: str, action: str, port: int, **params: int) -> fy.P4TableEntry:
    """The entry that gives a port its discipline's parameters (an exact match on it)."""
    return fy.P4TableEntry(
        table, match=fy.Match({PORT_KEY: port}), action=fy.Action(action, **params)
    )


def range_entries(
    table: str, key: str, action: str, param: str, port: int, entries: tuple[RangeEntry, ...]
) -> list[fy.P4TableEntry]:
    return [
        fy.P4TableEntry(
            table,
            match=fy.Match({PORT_KEY: port, key: f"{e.low}...{e.high}"}),
            action=fy.Action(action, **{param: e.value}),
            priority=RANGE_PRIORITY,
        )
        for e in entries
    ]


def red_entries(port: int, config: "RedConfig") -> list[fy.P4TableEntry]:
    tables = RedTables.from_params(config.params())
    params = port_entry(
        "MyIngress.red_config",
        "MyIngress.red_set_params",
        port,
        w_shift=tables.k,
        min_th=tables.min_th,
        ramp_end=tables.ramp_end,
        limit_pkts=tables.limit_pkts,
        ecn_enabled=int(tables.ecn),
    )
    ramp = range_entries(
        "MyIngress.red_ramp", "meta.avg", "MyIngress.red_set_p_b", "p_b", port, tables.p_b_table
    )
    decay = range_entries(
        "MyIngress.red_decay",
        "meta.idle_us",
        "MyIngress.red_set_decay",
        "decay",
        port,
        tables.decay_table,
    )
    return [params, *ramp, *decay]
