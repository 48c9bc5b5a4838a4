"""BMv2 JSON written by older compilers, which simple_switch still loads
(behavioral-model's P4Objects.cpp): a parser's default transition as
`{"value": "default"}` without a `type` (p4c's JSON 2.18, as in BMv2's own
packet_redirect.json), and tables that name their actions without `action_ids`
(p4c-bm's JSON 2.5, as in BMv2's broadcast.json), looked up by name."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from p4aqm.switch._dataplane import Dataplane

TABLE = "MyIngress.ipv4_lpm"
FWD = "MyIngress.ipv4_forward"


def as_2_18(program: dict[str, Any]) -> dict[str, Any]:
    """Default transitions without a type, their value the string "default"."""
    old = copy.deepcopy(program)
    for parser in old["parsers"]:
        for state in parser["parse_states"]:
            for t in state["transitions"]:
                if t.get("type") == "default":
                    del t["type"]
                    t["value"] = "default"
    return old


def without_action_ids(program: dict[str, Any]) -> dict[str, Any]:
    old = copy.deepcopy(program)
    for pipeline in old["pipelines"]:
        for table in pipeline["tables"]:
            del table["action_ids"]
    return old


def run(program: dict[str, Any]) -> list[tuple[int, bytes]]:
    """Routes 10.0.2.0/24 to port 2 and sends an IPv4 and a non-IPv4 packet."""
    dp = Dataplane()
    for port in (1, 2):
        dp.add_memory_port(port)
    dp.load_pipeline(json.dumps(program).encode())
    mac = bytes.fromhex("000000000202")
    dp.table_add(TABLE, [("lpm", bytes([10, 0, 2, 0]), 24)], FWD, [mac, mac, b"\x00\x02"], 0)
    ipv4 = Ether() / IP(dst="10.0.2.2") / UDP() / b"x"
    dp.inject(1, bytes(ipv4))
    dp.inject(1, bytes(Ether(type=0x86DD) / (b"y" * 40)))
    return dp.take_output()


@pytest.mark.parametrize("older", [as_2_18, without_action_ids])
def test_older_forms_behave_as_the_current_ones(l3_dict: dict[str, Any], older: Any) -> None:
    expected = run(l3_dict)
    assert [p for p, _ in expected] == [2]
    assert run(older(l3_dict)) == expected


def test_an_unknown_action_name_is_refused(l3_dict: dict[str, Any]) -> None:
    old = without_action_ids(l3_dict)
    old["pipelines"][0]["tables"][0]["actions"][0] = "MyIngress.nowhere"
    with pytest.raises(
        ValueError, match="table 'MyIngress.ipv4_lpm': unknown action 'MyIngress.nowhere'"
    ):
        Dataplane().load_pipeline(json.dumps(old).encode())
