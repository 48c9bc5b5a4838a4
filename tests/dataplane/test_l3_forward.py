"""The dataplane runs l3_forward's BMv2 JSON on memory ports."""

import json
import time

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from p4aqm.switch._dataplane import Dataplane

TABLE = "MyIngress.ipv4_lpm"
FWD = "MyIngress.ipv4_forward"
NEXT_HOP_MAC = "00:00:00:00:02:02"
ROUTER_MAC = "00:00:00:00:01:01"


def mac(s: str) -> bytes:
    return bytes.fromhex(s.replace(":", ""))


def ip(s: str) -> bytes:
    return bytes(int(x) for x in s.split("."))


@pytest.fixture
def dp(l3_json: bytes) -> Dataplane:
    d = Dataplane()
    for port in (1, 2, 3):
        d.add_memory_port(port)
    d.load_pipeline(l3_json)
    return d


def route(dp: Dataplane, prefix: str, plen: int, port: int) -> int:
    return dp.table_add(
        TABLE,
        [("lpm", ip(prefix), plen)],
        FWD,
        [mac(NEXT_HOP_MAC), mac(ROUTER_MAC), port.to_bytes(2, "big")],
        0,
    )


def packet(dst: str = "10.0.2.2", ttl: int = 64) -> bytes:
    return bytes(
        Ether(src="00:00:00:00:00:01", dst="00:00:00:00:01:00")
        / IP(src="10.0.1.1", dst=dst, ttl=ttl)
        / UDP(sport=1234, dport=5678)
        / b"payload"
    )


def test_has_pipeline(l3_json: bytes) -> None:
    d = Dataplane(cpu_port=None, seed=1)
    assert not d.has_pipeline()
    d.load_pipeline(l3_json)
    assert d.has_pipeline()


def test_forward_rewrites_macs_ttl_and_checksum(dp: Dataplane) -> None:
    route(dp, "10.0.2.0", 24, 2)
    dp.inject(1, packet())
    out = dp.take_output()
    assert [p for p, _ in out] == [2]
    got = Ether(out[0][1])
    assert got.dst == NEXT_HOP_MAC
    assert got.src == ROUTER_MAC
    assert got[IP].ttl == 63
    sent_cksum = got[IP].chksum
    del got[IP].chksum
    assert IP(bytes(got[IP]))[IP].chksum == sent_cksum
    assert bytes(got[UDP].payload) == b"payload"
    assert dp.take_output() == []


def test_longest_prefix_wins(dp: Dataplane) -> None:
    route(dp, "10.0.0.0", 8, 1)
    route(dp, "10.0.2.0", 24, 3)
    route(dp, "0.0.0.0", 0, 2)
    dp.inject(1, packet("10.0.2.9"))
    dp.inject(1, packet("10.7.7.7"))
    dp.inject(1, packet("192.168.1.1"))
    assert [p for p, _ in dp.take_output()] == [3, 1, 2]


def test_no_route_and_low_ttl_drop(dp: Dataplane) -> None:
    dp.inject(1, packet())
    route(dp, "10.0.2.0", 24, 2)
    dp.inject(1, packet(ttl=1))
    dp.inject(1, bytes(Ether(type=0x86DD) / (b"x" * 60)))
    assert dp.take_output() == []


def test_delete_modify_default_and_clear(dp: Dataplane) -> None:
    h = route(dp, "10.0.2.0", 24, 2)
    dp.table_modify(TABLE, h, FWD, [mac(NEXT_HOP_MAC), mac(ROUTER_MAC), b"\x03"])
    dp.inject(1, packet())
    assert [p for p, _ in dp.take_output()] == [3]
    dp.table_delete(TABLE, h)
    dp.inject(1, packet())
    assert dp.take_output() == []
    dp.table_set_default(TABLE, FWD, [mac(NEXT_HOP_MAC), mac(ROUTER_MAC), b"\x01"])
    dp.inject(2, packet())
    assert [p for p, _ in dp.take_output()] == [1]
    dp.table_set_default(TABLE, "MyIngress.drop", [])
    route(dp, "10.0.2.0", 24, 2)
    dp.table_clear(TABLE)
    dp.inject(1, packet())
    assert dp.take_output() == []


def test_values_are_truncated_and_extended(dp: Dataplane) -> None:
    # port is 9 bits: 0x0203 keeps 0x003; a 5-byte address keeps its low 4 bytes.
    dp.table_add(
        TABLE,
        [("lpm", b"\xff" + ip("10.0.2.0"), 24)],
        FWD,
        [mac(NEXT_HOP_MAC), b"\x01\x01", b"\x02\x03"],
        0,
    )
    dp.inject(1, packet())
    out = dp.take_output()
    assert [p for p, _ in out] == [3]
    assert Ether(out[0][1]).src == "00:00:00:00:01:01"


def test_truncated_and_garbage_packets_do_not_crash(dp: Dataplane) -> None:
    route(dp, "0.0.0.0", 0, 2)
    full = packet()
    for n in range(len(full)):
        dp.inject(1, full[:n])
    dp.inject(1, b"")
    # Below 34 bytes the IPv4 header is cut short: PacketTooShort leaves ipv4
    # invalid and ingress drops. From 34 bytes on, the header parses and the
    # (short) payload is forwarded unchanged, as in BMv2.
    out = dp.take_output()
    assert len(out) == len(full) - 34
    assert {p for p, _ in out} == {2}
    assert all(len(d) == n for (_, d), n in zip(out, range(34, len(full)), strict=True))


def test_const_default_action(l3_dict: dict) -> None:
    l3_dict["pipelines"][0]["tables"][0]["default_entry"]["action_const"] = True
    d = Dataplane()
    d.load_pipeline(json.dumps(l3_dict).encode())
    with pytest.raises(ValueError, match="default action is const"):
        d.table_set_default(TABLE, FWD, [b"\x01", b"\x02", b"\x03"])
    d.table_set_default(TABLE, "MyIngress.drop", [])


def test_trace_does_not_change_behaviour(dp: Dataplane, capfd: pytest.CaptureFixture) -> None:
    route(dp, "10.0.2.0", 24, 2)
    dp.set_trace(True)
    dp.inject(1, packet())
    dp.inject(1, packet(ttl=1))
    dp.set_trace(False)
    err = capfd.readouterr().err
    assert "parser state start" in err
    assert "table MyIngress.ipv4_lpm" in err and "hit" in err
    assert "MyIngress.ipv4_forward(dst_mac=" in err
    assert "dropped in ingress" in err
    assert len(dp.take_output()) == 1


def test_bad_json_is_value_error() -> None:
    d = Dataplane()
    with pytest.raises(ValueError, match="invalid JSON"):
        d.load_pipeline(b"{not json")
    assert not d.has_pipeline()


def test_unknown_action_id_names_table(l3_dict: dict) -> None:
    l3_dict["pipelines"][0]["tables"][0]["action_ids"][0] = 7
    with pytest.raises(ValueError, match="table 'MyIngress.ipv4_lpm': unknown action id 7"):
        Dataplane().load_pipeline(json.dumps(l3_dict).encode())


def test_unsupported_features_are_named(l3_dict: dict) -> None:
    bad = json.loads(json.dumps(l3_dict))
    bad["actions"][1]["primitives"][0]["op"] = "clone_ingress_pkt_to_ingress"
    with pytest.raises(ValueError, match="'clone_ingress_pkt_to_ingress' is not supported"):
        Dataplane().load_pipeline(json.dumps(bad).encode())
    bad = json.loads(json.dumps(l3_dict))
    bad["calculations"][0]["algo"] = "crc64"
    with pytest.raises(ValueError, match="algorithm 'crc64'"):
        Dataplane().load_pipeline(json.dumps(bad).encode())
    bad = json.loads(json.dumps(l3_dict))
    bad["new_feature"] = []
    with pytest.raises(ValueError, match="new_feature"):
        Dataplane().load_pipeline(json.dumps(bad).encode())
    bad = json.loads(json.dumps(l3_dict))
    bad["pipelines"][0]["conditionals"][0]["expression"]["value"]["op"] = "frobnicate"
    with pytest.raises(ValueError, match="conditional 'node_2'.*'frobnicate'"):
        Dataplane().load_pipeline(json.dumps(bad).encode())


def test_api_misuse(dp: Dataplane) -> None:
    with pytest.raises(KeyError, match="no_such_table"):
        dp.table_add("no_such_table", [], FWD, [], 0)
    with pytest.raises(KeyError, match="no_such_action"):
        dp.table_add(TABLE, [("lpm", ip("10.0.0.0"), 8)], "no_such_action", [], 0)
    with pytest.raises(ValueError, match="takes 3 parameters"):
        dp.table_add(TABLE, [("lpm", ip("10.0.0.0"), 8)], FWD, [], 0)
    with pytest.raises(ValueError, match="is lpm, got exact"):
        dp.table_add(TABLE, [("exact", ip("10.0.0.0"))], "MyIngress.drop", [], 0)
    with pytest.raises(ValueError, match="prefix length 33"):
        dp.table_add(TABLE, [("lpm", ip("10.0.0.0"), 33)], "MyIngress.drop", [], 0)
    with pytest.raises(ValueError, match="unknown match kind"):
        dp.table_add(TABLE, [("fuzzy", b"")], "MyIngress.drop", [], 0)
    with pytest.raises(ValueError, match="must be bytes"):
        dp.table_add(TABLE, [("lpm", "10.0.0.0", 8)], "MyIngress.drop", [], 0)
    with pytest.raises(KeyError, match="handle 99"):
        dp.table_delete(TABLE, 99)
    with pytest.raises(KeyError, match="handle 99"):
        dp.table_modify(TABLE, 99, "MyIngress.drop", [])
    route(dp, "10.0.0.0", 8, 1)
    with pytest.raises(ValueError, match="duplicate"):
        route(dp, "10.0.0.0", 8, 2)
    with pytest.raises(ValueError, match="already added"):
        dp.add_memory_port(1)
    with pytest.raises(ValueError, match="no pipeline"):
        Dataplane().inject(1, b"\x00" * 64)
    with pytest.raises(ValueError, match="no pipeline"):
        Dataplane().table_clear(TABLE)
    with pytest.raises(ValueError, match="nosuchif0"):
        Dataplane().add_interface(5, "nosuchif0")


def test_reload_clears_state(dp: Dataplane, l3_json: bytes) -> None:
    route(dp, "10.0.2.0", 24, 2)
    dp.load_pipeline(l3_json)
    dp.inject(1, packet())
    assert dp.take_output() == []


def test_start_stop_without_interfaces(dp: Dataplane) -> None:
    # Without interfaces, start() runs the event loop for timed events: it sends what a
    # queue held back, which inject() alone leaves queued. Both calls are idempotent.
    route(dp, "10.0.2.0", 24, 2)
    dp.set_queue(2, rate_pps=100)  # one packet per 10 ms
    dp.start()
    dp.start()
    try:
        dp.inject(1, packet())
        dp.inject(1, packet())
        out = dp.take_output()
        deadline = time.monotonic() + 30  # only a hang takes this long
        while len(out) < 2 and time.monotonic() < deadline:
            time.sleep(0.005)
            out += dp.take_output()
    finally:
        dp.stop()
        dp.stop()
    assert [port for port, _ in out] == [2, 2]
    dp.inject(1, packet())
    dp.inject(1, packet())
    held = 2 - len(dp.take_output())  # inject() sends only what is due at once
    time.sleep(0.1)  # both are due by now
    assert dp.take_output() == []  # stopped: no thread sends them...
    dp.inject(1, packet())
    assert len(dp.take_output()) >= held  # ...until an inject() finds them due


def test_cpu_port_packet_out_and_packet_in(l3_json: bytes) -> None:
    d = Dataplane(cpu_port=255)
    d.add_memory_port(1)
    d.load_pipeline(l3_json)
    with pytest.raises(ValueError, match="port 255 already added"):
        d.add_memory_port(255)
    route(d, "10.0.2.0", 24, 255)
    d.packet_out(packet())  # runs ingress with ingress_port 255
    d.inject(1, packet())
    assert d.take_output() == []  # what goes to the CPU port is a packet-in
    got = d.packet_in(0.5)
    assert len(got) == 2 and all(len(p) == len(packet()) for p in got)
    assert d.packet_in(0.0) == []
    with pytest.raises(ValueError, match="out of range"):
        Dataplane(cpu_port=511)
