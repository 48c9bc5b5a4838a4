"""Random entities of every kind, written and read: each is answered with a status (never
INTERNAL), and the server keeps serving."""

import random

import grpc
import pytest
from finsy.proto import p4d, p4r
from switch_helpers import Client, Program, write_errors

ROUNDS = 300


def _number(rng: random.Random) -> int:
    return rng.choice([0, 1, 2, 15, 16, 255, 511, 512, 65535, 1 << 31, (1 << 63) - 1])


def _bytes(rng: random.Random) -> bytes:
    return rng.randbytes(rng.choice([0, 1, 2, 4, 5, 9]))


def _id(rng: random.Random, externs: Program, kind: str) -> int:
    ids = [o.preamble.id for o in getattr(externs.p4info, kind)]
    return rng.choice([*ids, 0, rng.getrandbits(32)])


def _index(rng: random.Random, message: p4r.RegisterEntry | p4r.CounterEntry) -> None:
    if rng.random() < 0.7:
        message.index.index = rng.choice([-1, 0, 3, 15, 16, 1 << 40])


def _table_entry(rng: random.Random, externs: Program) -> p4r.TableEntry:
    entry = p4r.TableEntry(table_id=_id(rng, externs, "tables"))
    for _ in range(rng.randrange(3)):
        entry.match.add(field_id=rng.randrange(3), exact={"value": _bytes(rng)})
    if rng.random() < 0.8:
        action = entry.action.action
        action.action_id = _id(rng, externs, "actions")
        for _ in range(rng.randrange(3)):
            action.params.add(param_id=rng.randrange(3), value=_bytes(rng))
    if rng.random() < 0.3:
        entry.counter_data.packet_count = _number(rng)
    if rng.random() < 0.3:
        entry.meter_config.cir = _number(rng)
        entry.meter_config.pir = _number(rng)
    entry.priority = rng.choice([0, 0, 1])
    return entry


def _entity(rng: random.Random, externs: Program) -> p4r.Entity:
    kind = rng.choice(
        ["register", "counter", "meter", "direct_counter", "direct_meter", "pre", "digest"]
    )
    if kind == "register":
        register = p4r.RegisterEntry(register_id=_id(rng, externs, "registers"))
        _index(rng, register)
        if rng.random() < 0.8:
            register.data.CopyFrom(p4d.P4Data(bitstring=_bytes(rng)))
        return p4r.Entity(register_entry=register)
    if kind == "counter":
        counter = p4r.CounterEntry(counter_id=_id(rng, externs, "counters"))
        _index(rng, counter)
        counter.data.byte_count = _number(rng)
        return p4r.Entity(counter_entry=counter)
    if kind == "meter":
        meter = p4r.MeterEntry(meter_id=_id(rng, externs, "meters"))
        _index(rng, meter)
        meter.config.cir, meter.config.pir = _number(rng), _number(rng)
        return p4r.Entity(meter_entry=meter)
    if kind == "direct_counter":
        direct = p4r.DirectCounterEntry(table_entry=_table_entry(rng, externs))
        return p4r.Entity(direct_counter_entry=direct)
    if kind == "direct_meter":
        meter_entry = p4r.DirectMeterEntry(table_entry=_table_entry(rng, externs))
        meter_entry.config.cburst = _number(rng)
        return p4r.Entity(direct_meter_entry=meter_entry)
    if kind == "pre":
        group = p4r.MulticastGroupEntry(multicast_group_id=_number(rng) & 0xFFFFFFFF)
        for _ in range(rng.randrange(3)):
            group.replicas.add(egress_port=_number(rng) & 0xFFFFFFFF, instance=rng.randrange(3))
        return p4r.Entity(
            packet_replication_engine_entry=p4r.PacketReplicationEngineEntry(
                multicast_group_entry=group
            )
        )
    digest = p4r.DigestEntry(digest_id=_id(rng, externs, "digests"))
    if rng.random() < 0.5:
        digest.config.max_list_size = rng.choice([-1, 0, 1, 100])
    return p4r.Entity(digest_entry=digest)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_entities(externs_client: Client, externs: Program, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(ROUNDS):
        entity = _entity(rng, externs)
        update = p4r.Update(type=rng.choice([0, 1, 2, 3, 7]), entity=entity)
        try:
            externs_client.write(update)
        except grpc.RpcError as exc:
            [(code, message)] = write_errors(exc)
            assert code != grpc.StatusCode.INTERNAL, (entity, message)
            assert message
        try:
            externs_client.read(entity)
        except grpc.RpcError as exc:
            assert exc.code() != grpc.StatusCode.INTERNAL, (entity, exc.details())
            assert exc.details()
    # Still serving.
    assert externs_client.read(p4r.Entity(register_entry=p4r.RegisterEntry()))
