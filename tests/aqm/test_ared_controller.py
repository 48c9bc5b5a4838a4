"""ARED's controller config becomes the integer table entries the model defines, and
those entries fit ared.p4's P4Info (every table, action and parameter name)."""

from pathlib import Path

import finsy as fy
import pytest
from pydantic import ValidationError

from p4aqm.controller.disciplines.ared import AredConfig
from p4aqm.models.ared import AredTables
from p4aqm.models.fixed_point import packets_to_avg, probability
from programs import P4SRC, compile_program


def test_entries_carry_the_model_tables(tmp_path: Path) -> None:
    config = AredConfig(discipline="ared", min_th=30, max_th=90, ecn=True)
    tables = AredTables.from_params(config.params())
    entries = config.entries(2)
    assert len(entries) == 1 + len(tables.ramp) + len(tables.red.decay_table)
    assert dict(entries[0].action.args) == {
        "w_shift": 9,
        "min_th": packets_to_avg(30),
        "ramp_end": packets_to_avg(180),  # gentle is always on
        "limit_pkts": 1000,
        "ecn_enabled": 1,
        "band_low": packets_to_avg(30 + 0.4 * 60),
        "band_high": packets_to_avg(30 + 0.6 * 60),
        "interval_us": 500_000,
        "max_p_init": probability(0.1),
        "max_p_top": probability(0.5),
        "max_p_bottom": probability(0.01),
        "alpha": probability(0.01),
        "beta": 58982,  # 0.9 in 2^-16
    }
    # Half the ramp is linear, half is gentle's: a = 1 there, and b rises from 0.
    gentle = len(tables.ramp) // 2
    first_gentle = entries[1 + gentle]
    assert first_gentle.match["meta.avg"].split("...")[0] == str(packets_to_avg(90))
    assert dict(first_gentle.action.args) == {"a": 1 << 24, "b": tables.ramp[gentle].b}

    program = compile_program(P4SRC / "ared.p4", tmp_path)
    schema = fy.P4Schema(program.p4info_path)
    for entry in entries:
        entry.encode(schema)
    # The sampler's columns name registers and counters that the program has.
    names = {
        "register": {register.name for register in schema.registers},
        "counter": {counter.name for counter in schema.counters},
    }
    for probe in config.probes():
        assert probe.name in names[probe.kind]
    assert config.probes()[-1].column == "max_p"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"min_th": 15, "max_th": 5}, "need 0 <= min_th < max_th"),
        ({"target_low": 0.7}, "need 0 <= target_low < target_high"),
        ({"interval_s": 0}, "greater than 0"),
        ({"w_q": 0.002}, "not a power of two"),
    ],
)
def test_bad_ared_parameters(kwargs: dict, message: str) -> None:
    values = {"discipline": "ared", "min_th": 5, "max_th": 15, **kwargs}
    with pytest.raises(ValidationError, match=message):
        AredConfig(**values)


@pytest.mark.parametrize(
    ("rate_bps", "min_th", "w_shift"),
    [
        # C = 833 packets/s: 5 ms of it is 4.2 packets, under the floor of 5; 1 - exp(-1/C)
        # = 0.0012, nearest to 2^-10 in log2.
        (10e6, 5.0, 10),
        # C = 8,333 packets/s: half of 5 ms of it is 20.8; 1 - exp(-1/C) = 1.2e-4 ~ 2^-13.
        (100e6, 20.833, 13),
    ],
)
def test_adaptive_reds_own_rule_sets_the_thresholds_and_weight(
    rate_bps: float, min_th: float, w_shift: int
) -> None:
    config = AredConfig(target_delay_us=5000, link_rate_bps=rate_bps, limit_pkts=480)
    assert config.min_th == pytest.approx(min_th, abs=1e-3)
    assert config.max_th == pytest.approx(3 * config.min_th)
    assert config.w_q == 2.0**-w_shift
    # Written out and read back (the router's config file), it is the same config.
    assert AredConfig.model_validate(config.model_dump()) == config


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"target_delay_us": 5000}, "link_rate_bps: target_delay_us needs the link's rate"),
        ({"target_delay_us": 5000, "link_rate_bps": 1e7, "min_th": 30}, "min_th: target_delay_us"),
        ({"target_delay_us": 5000, "link_rate_bps": 1e7, "w_q": 0.5}, "w_q: target_delay_us"),
        ({"target_delay_us": 0, "link_rate_bps": 1e7}, "target_delay_us"),
    ],
)
def test_the_rule_refuses_what_contradicts_it(fields: dict[str, float], named: str) -> None:
    with pytest.raises(ValidationError, match=named):
        AredConfig(**fields)
