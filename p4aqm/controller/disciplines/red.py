"""RED on a port (p4src/red.p4): its config, and the table entries the model computes.

The data plane cannot divide or raise to a power, so everything it needs arrives as
integers: the thresholds in 2^-16 packets, w_q as a shift, and two range tables of the
RED core (p4src/include/red_core.p4), p_b over the average and the idle decay over the
idle time (p4aqm/models/red.py). Values whose fixed-point form would not fit the
program's registers are refused when the config is loaded (p4aqm/models/fixed_point.py).
"""

from typing import Literal

import finsy as fy
from pydantic import Field, model_validator

from p4aqm.controller.sampler import Probe
from p4aqm.controller.schema import StrictModel
from p4aqm.models.fixed_point import AVG_FRAC_BITS
from p4aqm.models.red import RangeEntry, RedParams, RedTables
from p4aqm.schema import Column


class RedSettings(StrictModel):
    """What every RED-family discipline takes, in packets, probabilities and seconds."""

    min_th: float = Field(ge=0)
    max_th: float = Field(gt=0)
    max_p: float = Field(gt=0, le=1)
    w_q: float = Field(default=1 / 512, gt=0, lt=1)
    limit_pkts: int = Field(default=1000, ge=1)
    # Typical transmission time of a packet: the idle-decay clock (1500 B at 10 Mbit/s).
    mean_pkt_time_s: float = Field(default=0.0012, gt=0)

    def red_params(self, gentle: bool = False, ecn: bool = False) -> RedParams:
        return RedParams(
            min_th_pkts=self.min_th,
            max_th_pkts=self.max_th,
            max_p=self.max_p,
            w_q=self.w_q,
            limit_pkts=self.limit_pkts,
            gentle=gentle,
            ecn=ecn,
            idle_pkt_time_us=self.mean_pkt_time_s * 1e6,
        )


class RedConfig(RedSettings):
    """RED on a port's queue (p4src/red.p4)."""

    discipline: Literal["red"] = "red"
    gentle: bool = False
    ecn: bool = False

    @model_validator(mode="after")
    def _valid_red(self) -> "RedConfig":
        self.params()  # the model's own checks, reported at this field
        return self

    def probes(self) -> list[Probe]:
        """What the sampler reads for this port: occupancy, average, marks and drops."""
        return [
            OCCUPANCY_PROBE,
            AVG_PROBE,
            *(
                Probe(counter, "counter", f"MyIngress.red_enqueue.{counter}")
                for counter in ("marks", "early_drops", "forced_drops", "overflow_drops")
            ),
        ]

    def entries(self, port: int) -> list[fy.P4TableEntry]:
        return red_entries(port, self)

    def params(self) -> RedParams:
        return self.red_params(self.gentle, self.ecn)


# The sampler's columns of the registers every RED-family program shares.
OCCUPANCY_PROBE = Probe(Column.OCCUPANCY_PKTS, "register", "aqm_occupancy", digest="occupancy")
AVG_PROBE = Probe(Column.AVG_PKTS, "register", "red_avg", 2.0**-AVG_FRAC_BITS, digest="avg")

# The key of each discipline's own tables, and of the RED core's (red_core.p4).
PORT_KEY = "standard_metadata.egress_spec"
CORE_PORT_KEY = "port"
# Range tables need a priority in P4Runtime; their ranges never overlap, so one will do.
RANGE_PRIORITY = 1


def port_entry(table: str, action: str, port: int, **params: int) -> fy.P4TableEntry:
    """The entry that gives a port its discipline's parameters (an exact match on it)."""
    return fy.P4TableEntry(
        table, match=fy.Match({PORT_KEY: port}), action=fy.Action(action, **params)
    )


def core_range_entries(
    table: str, key: str, action: str, param: str, port: int, entries: tuple[RangeEntry, ...]
) -> list[fy.P4TableEntry]:
    """A range table of the RED core's, keyed on the port and one quantity."""
    return [
        fy.P4TableEntry(
            f"MyIngress.{table}",
            match=fy.Match({CORE_PORT_KEY: port, key: f"{e.low}...{e.high}"}),
            action=fy.Action(f"MyIngress.{action}", **{param: e.value}),
            priority=RANGE_PRIORITY,
        )
        for e in entries
    ]


def decay_entries(port: int, tables: RedTables) -> list[fy.P4TableEntry]:
    """The RED core's idle decay over the idle time (red_core.p4's RedAverage)."""
    return core_range_entries(
        "red_average.idle_decay",
        "idle_us",
        "red_average.set_decay",
        "decay",
        port,
        tables.decay_table,
    )


def ramp_entries(port: int, tables: RedTables) -> list[fy.P4TableEntry]:
    """The RED core's p_b over the average (red_core.p4's RedRamp)."""
    return core_range_entries(
        "red_ramp.ramp", "avg", "red_ramp.set_p_b", "p_b", port, tables.p_b_table
    )


def red_params_entry(
    table: str, action: str, port: int, tables: RedTables, **own: int
) -> fy.P4TableEntry:
    """The port's entry in a RED-family config table: the RED core's parameters, which
    the set_params actions of red.p4, ared.p4 and cbt.p4 take first, then the
    discipline's own (`own`)."""
    return port_entry(
        table,
        action,
        port,
        w_shift=tables.w_shift,
        min_th=tables.min_th_q16,
        ramp_end=tables.ramp_end_q16,
        limit_pkts=tables.limit_pkts,
        ecn_enabled=int(tables.ecn),
        **own,
    )


def red_entries(port: int, config: "RedConfig") -> list[fy.P4TableEntry]:
    tables = RedTables.from_params(config.params())
    params = red_params_entry("MyIngress.red_config", "MyIngress.red_set_params", port, tables)
    return [params, *ramp_entries(port, tables), *decay_entries(port, tables)]
