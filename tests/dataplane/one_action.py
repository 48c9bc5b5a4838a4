"""What the hand-written BMv2 JSON tests share: a parser of one state, an ingress of
one table whose constant default action sends to port 1 and then runs the test's
primitives, and one packet through it."""

import json

from p4aqm.switch._dataplane import Dataplane

TO_PORT_1 = {
    "op": "assign",
    "parameters": [
        {"type": "field", "value": ["standard_metadata", "egress_spec"]},
        {"type": "hexstr", "value": "0x0001"},
    ],
}


# The standard_metadata a hand-written program needs: its type and its instance (id 0).
STANDARD_METADATA_TYPE = {"name": "standard_metadata", "fields": [["egress_spec", 9, False]]}
STANDARD_METADATA = {
    "name": "standard_metadata",
    "id": 0,
    "header_type": "standard_metadata",
    "metadata": True,
}


def one_state_parser(parser_ops: list[dict]) -> list[dict]:
    """The program's `parsers`: state start runs `parser_ops`, then accepts."""
    start = {
        "name": "start",
        "parser_ops": parser_ops,
        "transition_key": [],
        "transitions": [{"type": "default", "value": None, "mask": None, "next_state": None}],
    }
    return [{"name": "parser", "init_state": "start", "parse_states": [start]}]


def ingress_action(primitives: list[dict]) -> dict:
    """The program's `actions` and `pipelines`: table t, default action act."""
    return {
        "actions": [{"name": "act", "id": 0, "primitives": [TO_PORT_1, *primitives]}],
        "pipelines": [
            {
                "name": "ingress",
                "init_table": "t",
                "tables": [
                    {
                        "name": "t",
                        "action_ids": [0],
                        "actions": ["act"],
                        "next_tables": {"act": None},
                        "default_entry": {"action_id": 0, "action_const": True},
                    }
                ],
            },
            {"name": "egress", "init_table": None},
        ],
    }


def forward(prog: dict, packet: bytes) -> bytes:
    """What leaves port 1 for `packet` in on port 0."""
    d = Dataplane()
    d.add_memory_port(0)
    d.add_memory_port(1)
    d.load_pipeline(json.dumps(prog).encode())
    d.inject(0, packet)
    [(port, out)] = d.take_output()
    assert port == 1
    return out
