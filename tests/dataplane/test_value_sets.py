"""Parser value sets in hand-written BMv2 JSON (p4c-bm2-ss's `parse_vsets` and
`parse_vset` transitions): membership picks the transition, the control plane
replaces the members, and what the loader and the API refuse."""

import json
from collections.abc import Callable

import pytest
from value_set_json import DEFAULT, value_set_program

from p4aqm.switch._dataplane import Dataplane

VSET = "p.vs"


def program(max_size: int | None = 4, width: int = 12) -> dict:
    """The start state selects on (h.x, h.z), 12 bits concatenated: VSET -> port 1,
    0x0ff (x 0, z 0xff) -> port 2, else port 3."""
    vset: dict = {"name": VSET, "id": 0, "compressed_bitwidth": width}
    if max_size is not None:
        vset["max_size"] = max_size
    transitions = [
        {"type": "parse_vset", "value": VSET, "mask": None, "next_state": "in_set"},
        {"type": "hexstr", "value": "0x00ff", "mask": None, "next_state": "in_value"},
        {**DEFAULT, "next_state": "other"},
    ]
    return value_set_program([vset], transitions, {"in_set": 1, "in_value": 2, "other": 3})


def load(prog: dict) -> Dataplane:
    dp = Dataplane()
    for port in (1, 2, 3):
        dp.add_memory_port(port)
    dp.load_pipeline(json.dumps(prog).encode())
    return dp


@pytest.fixture
def dp() -> Dataplane:
    return load(program())


def frame(x: int, z: int, y: int = 0x123) -> bytes:
    return bytes([x << 4 | y >> 8, y & 0xFF, z]) + b"payload"


def port_of(dp: Dataplane, packet: bytes) -> int:
    dp.inject(0, packet)
    [(port, out)] = dp.take_output()
    assert out == packet
    return port


def test_members_take_the_value_set_transition(dp: Dataplane) -> None:
    assert dp.value_set_get(VSET) == []
    assert port_of(dp, frame(0x1, 0xAB)) == 3
    dp.value_set_set(VSET, [b"\x01\xab", b"\x0f\x00"])
    # The member is x and z concatenated at their widths (4 + 8 bits), not
    # byte-padded: 0x1ab is x 1, z 0xab, whatever y is.
    assert port_of(dp, frame(0x1, 0xAB)) == 1
    assert port_of(dp, frame(0x1, 0xAB, y=0xFFF)) == 1
    assert port_of(dp, frame(0xF, 0x00)) == 1
    assert port_of(dp, frame(0x1, 0xAC)) == 3
    assert port_of(dp, frame(0xA, 0x1B)) == 3


def test_a_non_member_falls_to_the_next_transition(dp: Dataplane) -> None:
    dp.value_set_set(VSET, [b"\x01\xab"])
    assert port_of(dp, frame(0x0, 0xFF)) == 2
    # Transitions are tried in order: as a member, the key takes the set's.
    dp.value_set_set(VSET, [b"\x00\xff"])
    assert port_of(dp, frame(0x0, 0xFF)) == 1


def test_set_replaces_all_members(dp: Dataplane) -> None:
    dp.value_set_set(VSET, [b"\x01\xab"])
    dp.value_set_set(VSET, [b"\x02\x22", b"\x03\x33"])
    assert dp.value_set_get(VSET) == [b"\x02\x22", b"\x03\x33"]
    assert port_of(dp, frame(0x1, 0xAB)) == 3
    assert port_of(dp, frame(0x3, 0x33)) == 1
    dp.value_set_set(VSET, [])
    assert dp.value_set_get(VSET) == []
    assert port_of(dp, frame(0x3, 0x33)) == 3


def test_get_returns_members_in_order_in_fewest_bytes(dp: Dataplane) -> None:
    # Padded and short byte strings are both accepted; a repeat is kept once.
    dp.value_set_set(VSET, [b"\x00\x00\x0f\xff", b"\x05", bytearray(b"\x01\x00"), b"\x05"])
    assert dp.value_set_get(VSET) == [b"\x0f\xff", b"\x00\x05", b"\x01\x00"]


def test_loading_a_pipeline_empties_the_sets(dp: Dataplane) -> None:
    dp.value_set_set(VSET, [b"\x01\xab"])
    dp.load_pipeline(json.dumps(program()).encode())
    assert dp.value_set_get(VSET) == []


def test_trace_names_the_value_set(dp: Dataplane, capfd: pytest.CaptureFixture[str]) -> None:
    dp.value_set_set(VSET, [b"\x01\xab"])
    dp.set_trace(True)
    port_of(dp, frame(0x1, 0xAB))
    port_of(dp, frame(0x1, 0xAC))
    err = capfd.readouterr().err
    assert f"value set {VSET} matched by key 0x1ab" in err
    assert f"value set {VSET} not matched by key 0x1ac" in err


def test_too_many_members(dp: Dataplane) -> None:
    dp.value_set_set(VSET, [bytes([0, i]) for i in range(4)])
    with pytest.raises(ValueError, match=rf"value set '{VSET}' holds at most 4 members, got 5"):
        dp.value_set_set(VSET, [bytes([0, i]) for i in range(5)])
    # A refused set leaves the members as they were.
    assert len(dp.value_set_get(VSET)) == 4


def test_no_max_size_means_no_limit() -> None:
    dp = load(program(max_size=None))
    dp.value_set_set(VSET, [i.to_bytes(2, "big") for i in range(4096)])
    assert len(dp.value_set_get(VSET)) == 4096
    assert port_of(dp, frame(0xF, 0xFE)) == 1


@pytest.mark.parametrize("member", [b"\x10\x00", b"\xff\xff", b"\x01" + bytes(16)])
def test_too_wide_member(dp: Dataplane, member: bytes) -> None:
    with pytest.raises(ValueError, match=rf"value set '{VSET}': member 1 .* wider than 12 bits"):
        dp.value_set_set(VSET, [b"\x01", member])
    assert dp.value_set_get(VSET) == []


def test_bad_arguments(dp: Dataplane) -> None:
    with pytest.raises(KeyError, match="unknown value set 'p.nope'"):
        dp.value_set_set("p.nope", [])
    with pytest.raises(KeyError, match="unknown value set 'p.nope'"):
        dp.value_set_get("p.nope")
    with pytest.raises(ValueError, match="member 0 must be bytes"):
        dp.value_set_set(VSET, [1])
    with pytest.raises(ValueError, match="no pipeline loaded"):
        Dataplane().value_set_get(VSET)


def test_key_width_must_equal_the_member_width() -> None:
    with pytest.raises(
        ValueError,
        match=r"parse state 'start': select key is 12 bits but parse_vset 'p\.vs' has "
        r"16-bit members",
    ):
        load(program(width=16))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda p: p["parsers"][0]["parse_states"][0]["transitions"][0].update(value="p.nope"),
            "parse state 'start': unknown parse_vset 'p.nope'",
        ),
        (
            lambda p: p["parsers"][0]["parse_states"][0]["transitions"][0].update(mask="0xfff"),
            "masked transition on parse_vset 'p.vs' is not supported",
        ),
        (
            # Another id (the same id is refused first, as BMv2 refuses it), the same name.
            lambda p: p["parse_vsets"].append(dict(p["parse_vsets"][0], id=1)),
            "parse_vset 'p.vs': defined twice",
        ),
        (
            lambda p: p["parse_vsets"][0].update(compressed_bitwidth=129),
            "parse_vset 'p.vs': compressed_bitwidth 129 not supported",
        ),
    ],
)
def test_loader_rejects(change: Callable[[dict], object], message: str) -> None:
    prog = program()
    change(prog)
    with pytest.raises(ValueError, match=message.replace(".", r"\.")):
        load(prog)
