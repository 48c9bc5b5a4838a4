"""CounterEntry and DirectCounterEntry over gRPC, with counts the program made."""

from typing import Any

import grpc
import pytest
from finsy.proto import p4r
from switch_helpers import Client, Program, insert, modify, write_errors

COUNTER = "MyIngress.port_packets"  # packets_and_bytes[16], indexed by ingress_port
FRAME = bytes(14) + b"payload"


def _counter(
    externs: Program, index: int | None = None, data: tuple[int, int] | None = None
) -> p4r.Entity:
    entry = p4r.CounterEntry(counter_id=externs.id_of("counters", COUNTER))
    if index is not None:
        entry.index.index = index
    if data is not None:
        entry.data.CopyFrom(p4r.CounterData(byte_count=data[0], packet_count=data[1]))
    return p4r.Entity(counter_entry=entry)


def _counts(entity: p4r.Entity) -> tuple[int, int]:
    data = entity.WhichOneof("entity") and getattr(entity, entity.WhichOneof("entity")).data
    return data.byte_count, data.packet_count


def forward_entry(externs: Program, in_port: int = 1, out_port: int = 2) -> p4r.TableEntry:
    return p4r.TableEntry(
        table_id=externs.table_id("MyIngress.forward"),
        match=[p4r.FieldMatch(field_id=1, exact={"value": bytes([in_port])})],
        action=p4r.TableAction(
            action=p4r.Action(
                action_id=externs.action_id("MyIngress.send"),
                params=[p4r.Action.Param(param_id=1, value=bytes([out_port]))],
            )
        ),
    )


def _direct(externs: Program, data: tuple[int, int] | None = None, **entry: Any) -> p4r.Entity:
    table_entry = (
        forward_entry(externs) if entry.get("table_entry") is None else entry["table_entry"]
    )
    counter = p4r.DirectCounterEntry(table_entry=table_entry)
    if data is not None:
        counter.data.CopyFrom(p4r.CounterData(byte_count=data[0], packet_count=data[1]))
    return p4r.Entity(direct_counter_entry=counter)


def test_counter_counts_packets(
    externs_client: Client, externs: Program, cpu_dataplane: Any
) -> None:
    cpu_dataplane.inject(3, FRAME)
    cpu_dataplane.inject(3, FRAME)
    [entity] = externs_client.read(_counter(externs, 3))
    assert entity.counter_entry.index.index == 3
    assert _counts(entity) == (2 * len(FRAME), 2)


def test_counter_write_and_wildcard_read(externs_client: Client, externs: Program) -> None:
    externs_client.write(modify(_counter(externs, 5, (1000, 10))))
    entities = externs_client.read(_counter(externs))
    assert [e.counter_entry.index.index for e in entities] == list(range(16))
    assert _counts(entities[5]) == (1000, 10)
    # A write without an index sets every cell: the way to reset a counter array.
    externs_client.write(modify(_counter(externs, None, (0, 0))))
    assert {_counts(e) for e in externs_client.read(_counter(externs))} == {(0, 0)}
    assert len(externs_client.read(p4r.Entity(counter_entry=p4r.CounterEntry()))) == 16


def test_bad_counter_requests(externs_client: Client, externs: Program) -> None:
    with pytest.raises(grpc.RpcError) as info:
        externs_client.write(
            modify(_counter(externs, 16, (1, 1))),
            modify(_counter(externs, 1, (-1, 1))),
            p4r.Update(type=p4r.Update.INSERT, entity=_counter(externs, 1, (1, 1))),
            modify(p4r.Entity(counter_entry=p4r.CounterEntry(counter_id=0x12000001))),
        )
    codes = [c.name for c, _ in write_errors(info.value)]
    assert codes == ["OUT_OF_RANGE", "INVALID_ARGUMENT", "INVALID_ARGUMENT", "NOT_FOUND"]


def test_direct_counter(externs_client: Client, externs: Program, cpu_dataplane: Any) -> None:
    externs_client.write(insert(forward_entry(externs)))
    cpu_dataplane.inject(1, FRAME)
    [entity] = externs_client.read(_direct(externs))
    assert entity.direct_counter_entry.table_entry.match[0].exact.value == b"\x01"
    assert _counts(entity) == (len(FRAME), 1)
    externs_client.write(modify(_direct(externs, (7, 3))))
    # An empty table entry of the table: every entry's counter.
    query = _direct(
        externs, table_entry=p4r.TableEntry(table_id=externs.table_id("MyIngress.forward"))
    )
    assert [_counts(e) for e in externs_client.read(query)] == [(7, 3)]
    # table_id 0: every table with a direct counter.
    assert len(externs_client.read(_direct(externs, table_entry=p4r.TableEntry()))) == 1


def test_bad_direct_counter_requests(externs_client: Client, externs: Program) -> None:
    with pytest.raises(grpc.RpcError) as info:
        externs_client.write(modify(_direct(externs, (1, 1))))
    [(code, text)] = write_errors(info.value)
    assert code == grpc.StatusCode.NOT_FOUND and "no entry" in text
    with pytest.raises(grpc.RpcError) as info:
        externs_client.read(
            _direct(
                externs,
                table_entry=p4r.TableEntry(
                    table_id=externs.table_id("MyIngress.forward"), is_default_action=True
                ),
            )
        )
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_table_entry_direct_fields(externs_client: Client, externs: Program) -> None:
    entry = forward_entry(externs)
    entry.counter_data.CopyFrom(p4r.CounterData(byte_count=50, packet_count=5))
    entry.meter_config.CopyFrom(p4r.MeterConfig(cir=10, cburst=1, pir=20, pburst=2))
    externs_client.write(insert(entry))
    # Without the fields in the query, a read leaves them out.
    [plain] = externs_client.read(p4r.Entity(table_entry=forward_entry(externs)))
    assert not plain.table_entry.HasField("counter_data")
    query = p4r.TableEntry(table_id=entry.table_id)
    query.counter_data.SetInParent()
    query.meter_config.SetInParent()
    [full] = externs_client.read(p4r.Entity(table_entry=query))
    assert full.table_entry.counter_data == entry.counter_data
    assert full.table_entry.meter_config == entry.meter_config


def test_table_entry_meter_counter_data_is_unsupported(
    externs_client: Client, externs: Program
) -> None:
    entry = forward_entry(externs)
    entry.meter_counter_data.green.packet_count = 1
    with pytest.raises(grpc.RpcError) as info:
        externs_client.write(insert(entry))
    [(code, text)] = write_errors(info.value)
    assert code == grpc.StatusCode.UNIMPLEMENTED and "meter_counter_data" in text
