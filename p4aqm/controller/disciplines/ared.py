"""Adaptive RED on a port (p4src/ared.p4): its config, and the table entries the model computes.

As for RED, everything the data plane needs arrives as integers (p4aqm/models/ared.py):
the thresholds and the target band in 2^-16 packets, w_q as a shift, the interval in
microseconds, the initial max_p and the adaptation's constants in 2^-24, the ramp
table of fractions over the average, and RED's idle-decay table. The data plane then
adapts max_p itself; the config's max_p is only where it starts.
"""

import math
from typing import Any, Literal

import finsy as fy
from pydantic import Field, model_validator

from p4aqm.controller.disciplines.red import (
    PORT_KEY,
    RANGE_PRIORITY,
    RedConfig,
    RedSettings,
    decay_entries,
    red_params_entry,
)
from p4aqm.controller.sampler import Probe
from p4aqm.models.ared import AredParams, AredTables, automatic_settings
from p4aqm.models.fixed_point import PROB_BITS
from p4aqm.schema import Column


class AredConfig(RedSettings):
    """Adaptive RED (gentle on) on a port's queue."""

    discipline: Literal["ared"] = "ared"
    max_p: float = Field(default=0.1, gt=0, le=1)  # the initial max_p
    ecn: bool = False
    interval_s: float = Field(default=0.5, gt=0)
    # The target band of the average, as fractions of the way from min_th to max_th.
    target_low: float = Field(default=0.4, ge=0, le=1)
    target_high: float = Field(default=0.6, ge=0, le=1)
    # Adaptive RED's own rule (p4aqm/models/ared.py automatic_settings): with a target
    # delay and the link's rate, min_th, max_th and w_q follow from them, not given.
    target_delay_us: float | None = Field(default=None, gt=0)
    link_rate_bps: float | None = Field(default=None, gt=0)

    @model_validator(mode="before")
    @classmethod
    def _automatic(cls, data: Any) -> Any:  # noqa: ANN401 - the config's mapping
        if not isinstance(data, dict) or data.get("target_delay_us") is None:
            return data
        if data.get("link_rate_bps") is None:
            raise ValueError("link_rate_bps: target_delay_us needs the link's rate")
        settings = automatic_settings(data["link_rate_bps"], data["target_delay_us"] / 1e6)
        rule = {"min_th": settings.min_th_pkts, "max_th": settings.max_th_pkts, "w_q": settings.w_q}
        # A config written out and read back carries the rule's values: those agree.
        other = [k for k, v in rule.items() if k in data and not math.isclose(data[k], v)]
        if other:
            raise ValueError(
                f"{', '.join(other)}: target_delay_us sets min_th, max_th and w_q"
                " (Adaptive RED's rule); give one or the other"
            )
        return {**data, **rule}

    @model_validator(mode="after")
    def _valid_ared(self) -> "AredConfig":
        self.params()  # the model's own checks, reported at this field
        return self

    def probes(self) -> list[Probe]:
        """RED's columns (ared.p4 keeps RED's register and counter names), and max_p."""
        red = RedConfig(discipline="red", min_th=self.min_th, max_th=self.max_th, max_p=self.max_p)
        return [*red.probes(), Probe(Column.MAX_P, "register", "ared_max_p", 2.0**-PROB_BITS)]

    def params(self) -> AredParams:
        return AredParams(
            self.red_params(gentle=True, ecn=self.ecn),
            interval_s=self.interval_s,
            target_low=self.target_low,
            target_high=self.target_high,
        )

    def entries(self, port: int) -> list[fy.P4TableEntry]:
        tables = AredTables.from_params(self.params())
        red = tables.red
        params = red_params_entry(
            "MyIngress.ared_config",
            "MyIngress.ared_set_params",
            port,
            red,
            band_low=tables.band_low,
            band_high=tables.band_high,
            interval_us=tables.interval_us,
            max_p_init=tables.max_p_init,
            max_p_top=tables.max_p_top,
            max_p_bottom=tables.max_p_bottom,
            alpha=tables.alpha,
            beta=tables.beta,
        )
        ramp = [
            fy.P4TableEntry(
                "MyIngress.ared_ramp",
                match=fy.Match({PORT_KEY: port, "meta.avg": f"{e.low}...{e.high}"}),
                action=fy.Action("MyIngress.ared_set_ramp", a=e.a, b=e.b),
                priority=RANGE_PRIORITY,
            )
            for e in tables.ramp
        ]
        return [params, *ramp, *decay_entries(port, red)]
