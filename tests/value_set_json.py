"""A hand-written BMv2 JSON program with parser value sets, in p4c-bm2-ss's shape, for the
dataplane and P4Runtime tests (importable by any test module).

Header h is x(4) y(12) z(8). The start state extracts h and selects on (h.x, h.z), 12
bits concatenated, through the transitions given; every other state records an egress
port in meta.port and accepts, and ingress forwards to meta.port.
"""

DEFAULT = {"type": "default", "value": None, "mask": None}


def field(header: str, name: str) -> dict:
    return {"type": "field", "value": [header, name]}


def port_state(name: str, port: int) -> dict:
    """A state that sets meta.port to `port` and accepts."""
    set_port = {
        "op": "set",
        "parameters": [field("meta", "port"), {"type": "hexstr", "value": hex(port)}],
    }
    return {
        "name": name,
        "parser_ops": [set_port],
        "transition_key": [],
        "transitions": [{**DEFAULT, "next_state": None}],
    }


def value_set_program(
    parse_vsets: list[dict], transitions: list[dict], ports: dict[str, int]
) -> dict:
    """The program: `transitions` from start, to the states named in `ports`."""
    start = {
        "name": "start",
        "parser_ops": [{"op": "extract", "parameters": [{"type": "regular", "value": "h"}]}],
        "transition_key": [field("h", "x"), field("h", "z")],
        "transitions": transitions,
    }
    forward = {
        "op": "assign",
        "parameters": [field("standard_metadata", "egress_spec"), field("meta", "port")],
    }
    states = [start] + [port_state(name, port) for name, port in ports.items()]
    return {
        "header_types": [
            {"name": "standard_metadata", "fields": [["egress_spec", 9, False]]},
            {"name": "meta_t", "fields": [["port", 9, False], ["_pad", 7, False]]},
            {"name": "h_t", "fields": [["x", 4, False], ["y", 12, False], ["z", 8, False]]},
        ],
        "headers": [
            {
                "name": "standard_metadata",
                "id": 0,
                "header_type": "standard_metadata",
                "metadata": True,
            },
            {"name": "meta", "id": 1, "header_type": "meta_t", "metadata": True},
            {"name": "h", "id": 2, "header_type": "h_t", "metadata": False},
        ],
        "errors": [["NoError", 0], ["PacketTooShort", 1], ["NoMatch", 2]],
        "parse_vsets": parse_vsets,
        "parsers": [{"name": "parser", "id": 0, "init_state": "start", "parse_states": states}],
        "deparsers": [{"name": "deparser", "order": ["h"]}],
        "actions": [{"name": "forward", "id": 0, "primitives": [forward]}],
        "pipelines": [
            {
                "name": "ingress",
                "init_table": "t",
                "tables": [
                    {
                        "name": "t",
                        "action_ids": [0],
                        "actions": ["forward"],
                        "next_tables": {"forward": None},
                        "default_entry": {"action_id": 0, "action_const": True},
                    }
                ],
            },
            {"name": "egress", "init_table": None},
        ],
    }
