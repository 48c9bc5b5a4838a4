"""CBT's config becomes the entries cbt.p4's P4Info accepts, with the rules in order."""

from pathlib import Path

import finsy as fy
import pytest
from pydantic import ValidationError

from p4aqm.controller.disciplines.cbt import CbtConfig
from p4aqm.models.cbt import CbtTables, TrafficClass
from programs import P4SRC, compile_program

PAPER = {
    "discipline": "cbt",
    "min_th": 15,
    "max_th": 30,
    "max_p": 0.1,
    "limit_pkts": 60,
    "marked_th": 10,
    "unmarked_th": 2,
}
RULES = [
    {"traffic_class": "marked", "protocol": 17, "dscp": 46},
    {"traffic_class": "unmarked", "src": "10.9.0.0/16", "dst": "0.0.0.0/0", "dst_port": 5004},
]


@pytest.fixture(scope="module")
def schema(tmp_path_factory: pytest.TempPathFactory) -> fy.P4Schema:
    program = compile_program(P4SRC / "cbt.p4", Path(tmp_path_factory.mktemp("cbt")))
    return fy.P4Schema(program.p4info_path)


def test_entries_fit_the_program(schema: fy.P4Schema) -> None:
    config = CbtConfig(**PAPER, classes=RULES)
    entries = config.entries(2)
    for entry in entries:
        entry.encode(schema)  # raises on a name, width or match kind the program lacks

    tables = CbtTables.from_params(config.cbt_params())
    assert entries[0].table_id == "MyIngress.cbt_config"
    assert dict(entries[0].action.args) == {
        "w_shift": 9,
        "min_th": 15 << 16,
        "ramp_end": 30 << 16,
        "limit_pkts": 60,
        "ecn_enabled": 0,
        "marked_th": 10 << 16,
        "unmarked_th": 2 << 16,
    }
    classifier = [e for e in entries if e.table_id == "MyIngress.cbt_class"]
    # The rules in order, then the TCP fallback below all of them.
    assert [e.priority for e in classifier] == [3, 2, 1]
    assert [e.action.args["traffic_class"] for e in classifier] == [
        TrafficClass.MARKED,
        TrafficClass.UNMARKED,
        TrafficClass.TCP,
    ]
    assert dict(classifier[1].match) == {
        "standard_metadata.egress_spec": 2,
        "hdr.ipv4.src_addr": "10.9.0.0/16",  # the /0 destination is left out: a wildcard
        "meta.l4_dst_port": 5004,
    }
    assert dict(classifier[2].match) == {
        "standard_metadata.egress_spec": 2,
        "hdr.ipv4.protocol": 6,
    }
    ranges = len(tables.red.p_b_table) + len(tables.red.decay_table)
    assert len(entries) == 1 + len(classifier) + ranges


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"unmarked_th": -1}, "unmarked_th"),
        ({"classes": [{"traffic_class": "marked", "dscp": 64}]}, "classes.0.dscp"),
        ({"classes": [{"traffic_class": "video"}]}, "classes.0.traffic_class"),
        ({"classes": [{"traffic_class": "marked", "dst_port": 70000}]}, "classes.0.dst_port"),
    ],
)
def test_bad_config_names_the_field(change: dict[str, object], field: str) -> None:
    with pytest.raises(ValidationError) as info:
        CbtConfig(**{**PAPER, **change})
    assert [".".join(map(str, e["loc"])) for e in info.value.errors()] == [field]


def test_probes_name_the_program_registers(schema: fy.P4Schema) -> None:
    for probe in CbtConfig(**PAPER).probes():
        table = schema.registers if probe.kind == "register" else schema.counters
        assert table[probe.name].name == probe.name
