"""No input makes the dataplane panic: mutated programs load or raise
ValueError; random packets run through the pipeline."""

import copy
import json
import random
from collections import Counter

from p4aqm.switch._dataplane import Dataplane

ODD_VALUES = [None, 0, -1, 2**70, "", "0x", "zz", "*", [], {}, [["x"]], True, 1.5]


def paths(node: object, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += paths(v, (*prefix, i))
    return out


def mutate(doc: dict, rng: random.Random) -> dict:
    doc = copy.deepcopy(doc)
    for _ in range(rng.randint(1, 3)):
        path = rng.choice(paths(doc)[1:])
        parent = doc
        for p in path[:-1]:
            parent = parent[p]
        if rng.random() < 0.3 and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = rng.choice(ODD_VALUES)
    return doc


def test_mutated_programs_load_or_raise_value_error(l3_dict: dict) -> None:
    rng = random.Random(1)
    loaded = 0
    for _ in range(400):
        d = Dataplane()
        d.add_memory_port(1)
        try:
            d.load_pipeline(json.dumps(mutate(l3_dict, rng)).encode())
        except ValueError:
            continue
        loaded += 1
        for n in (0, 14, 34, 60):
            d.inject(1, bytes(rng.randrange(256) for _ in range(n)))
    assert loaded > 0


def test_random_packets(l3_json: bytes) -> None:
    rng = random.Random(2)
    d = Dataplane()
    d.add_memory_port(1)
    d.load_pipeline(l3_json)
    d.table_add(
        "MyIngress.ipv4_lpm",
        [("lpm", b"\0\0\0\0", 0)],
        "MyIngress.ipv4_forward",
        [b"\1" * 6, b"\2" * 6, b"\1"],
        0,
    )
    for _ in range(2000):
        pkt = bytearray(rng.randrange(256) for _ in range(rng.randrange(80)))
        if len(pkt) > 14 and rng.random() < 0.5:
            pkt[12:14] = b"\x08\x00"
        d.inject(1, bytes(pkt))
    for port, data in d.take_output():
        assert port == 1 and data[:6] == b"\1" * 6


def test_mutated_extern_programs_load_or_raise_value_error(
    externs_json: bytes, passes_json: bytes
) -> None:
    rng = random.Random(2)
    for doc in (json.loads(externs_json), json.loads(passes_json)):
        loaded = 0
        for _ in range(200):
            d = Dataplane(virtual_time=True)
            d.add_memory_port(1)
            try:
                d.load_pipeline(json.dumps(mutate(doc, rng)).encode())
            except ValueError:
                continue
            assert d.has_pipeline()
            loaded += 1
            for n in (0, 3, 8, 20):
                d.inject(1, bytes(rng.randrange(256) for _ in range(n)))
            d.advance_time(1000)
        # Both outcomes occur: some mutants load and run packets, some are refused.
        assert 0 < loaded < 200


def test_random_packets_and_settings_with_time(externs_json: bytes, passes_json: bytes) -> None:
    rng = random.Random(3)
    for program in (externs_json, passes_json):
        d = Dataplane(cpu_port=64, virtual_time=True, priority_queues=4)
        for p in (1, 2, 3, 4):
            d.add_memory_port(p)
        d.load_pipeline(program)
        d.mc_group_set(1, [(2, 1), (3, 2), (64, 3), (9, 4)])
        d.clone_session_set(9, [(4, 0), (64, 1)], packet_length_bytes=rng.randrange(40))
        d.set_queue(2, rate_bps=1_000_000, depth_bytes=5000)
        d.set_queue(3, 1, rate_pps=1000, depth_pkts=2)
        d.set_link(4, delay_us=300, rate_bps=2_000_000)
        d.set_link(1, delay_us=50)
        injected = Counter()
        learned = []  # externs.p4's op 2 digests (ingress_port, arg); passes.p4 sends none
        for _ in range(2000):
            n = rng.choice((0, 1, 5, 6, 7, 8, 60, 1500))
            port = rng.choice((1, 2, 3, 64))
            data = bytes(rng.randrange(256) for _ in range(n))
            injected[port] += 1
            if program is externs_json and n >= 7 and data[0] == 2:
                learned.append(("learn_t", [port.to_bytes(2, "big"), data[1:3]]))
            d.inject(port, data)
            if rng.random() < 0.1:
                d.advance_time(rng.randrange(2000))
        d.advance_time(10_000_000)  # far longer than any queue or link takes to drain
        sent = Counter(port for port, _ in d.take_output())
        assert set(sent) <= {1, 2, 3, 4}  # memory ports only: not 9 (none), not the CPU's
        sent[64] = len(d.packet_in(0.0))
        assert d.digests(0.0) == learned
        for port in (1, 2, 3, 4, 64):
            stats = d.port_stats(port)
            assert stats["rx_packets"] == injected[port], (port, stats)
            assert stats["tx_packets"] == sent[port], (port, stats)
            assert all(stats[f"q{q}_qdepth_pkts"] == 0 for q in range(4)), (port, stats)
