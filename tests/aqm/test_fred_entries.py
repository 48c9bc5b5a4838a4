"""FRED's config becomes the model's integer table entries, and they fit fred.p4."""

from pathlib import Path

import finsy as fy
import pytest
from pydantic import ValidationError

from p4aqm.controller.disciplines.fred import FredConfig
from p4aqm.models.fred import FredTables
from programs import P4SRC, compile_program


def test_entries_carry_the_model_tables(tmp_path: Path) -> None:
    config = FredConfig(
        discipline="fred", min_th=5, max_th=15, max_p=0.02, flow_slots=64, slot_base=128
    )
    tables = FredTables.from_params(config.params())
    entries = config.entries(2)
    red = tables.red
    assert len(entries) == 1 + len(red.p_b_table) + len(red.decay_table) + 64
    params = entries[0]
    assert params.table_id == "MyIngress.fred_config"
    assert dict(params.match) == {"standard_metadata.egress_spec": 2}
    assert dict(params.action.args) == {
        "w_shift": 9,
        "min_th": 5 << 16,
        "max_th": 15 << 16,
        "limit_pkts": 1000,
        "min_q": 2 << 16,
        "max_q": 15,  # the paper's default, max_th
        "slot_base": 128,
        "slot_mask": 63,
    }
    share = [e for e in entries if e.table_id == "MyIngress.fred_share"]
    assert [(e.match["meta.nactive"], e.action.args["recip"]) for e in share[:3]] == [
        (1, 65536),
        (2, 32768),
        (3, 21845),
    ]
    # Every entry encodes against the program's P4Info: names and widths agree.
    program = compile_program(P4SRC / "fred.p4", tmp_path)
    schema = fy.P4Schema(program.p4info_path)
    for entry in entries:
        entry.encode(schema)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"min_th": 15, "max_th": 5}, "need 0 <= min_th < max_th"),
        ({"flow_slots": 48}, "flow_slots must be a power of two"),
        ({"flow_slots": 256, "slot_base": 65408}, "exceed 65536"),
        ({"limit_pkts": 40_000}, "limit_pkts = 40000 is too large: the largest allowed is 32767"),
        ({"max_q": 0}, "greater than or equal to 1"),
    ],
)
def test_bad_fred_parameters(kwargs: dict, message: str) -> None:
    values = {"discipline": "fred", "min_th": 5, "max_th": 15, "max_p": 0.1, **kwargs}
    with pytest.raises(ValidationError, match=message):
        FredConfig(**values)
