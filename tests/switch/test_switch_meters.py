"""MeterEntry and DirectMeterEntry over gRPC: configs written and read back."""

import grpc
import pytest
from finsy.proto import p4r
from switch_helpers import Client, Program, insert, modify, write_errors
from test_switch_counters import forward_entry

METER = "MyIngress.port_meter"  # bytes[16]
CONFIG = p4r.MeterConfig(cir=1000, cburst=100, pir=2000, pburst=200)


def _meter(
    externs: Program, index: int | None = None, config: p4r.MeterConfig | None = None
) -> p4r.Entity:
    entry = p4r.MeterEntry(meter_id=externs.id_of("meters", METER))
    if index is not None:
        entry.index.index = index
    if config is not None:
        entry.config.CopyFrom(config)
    return p4r.Entity(meter_entry=entry)


def test_meter_config_round_trip(externs_client: Client, externs: Program) -> None:
    [before] = externs_client.read(_meter(externs, 4))
    assert not before.meter_entry.HasField("config")  # unconfigured: every packet green
    externs_client.write(modify(_meter(externs, 4, CONFIG)))
    [after] = externs_client.read(_meter(externs, 4))
    assert after.meter_entry.config == CONFIG
    entities = externs_client.read(_meter(externs))
    assert [e.meter_entry.HasField("config") for e in entities] == [i == 4 for i in range(16)]


def test_a_write_without_config_resets_the_meter(externs_client: Client, externs: Program) -> None:
    externs_client.write(modify(_meter(externs, 4, CONFIG)), modify(_meter(externs, 5, CONFIG)))
    externs_client.write(modify(_meter(externs, 4)))
    entities = externs_client.read(_meter(externs))
    assert [e.meter_entry.HasField("config") for e in entities] == [i == 5 for i in range(16)]


def test_bad_meter_configs(externs_client: Client, externs: Program) -> None:
    with pytest.raises(grpc.RpcError) as info:
        externs_client.write(
            modify(_meter(externs, 1, p4r.MeterConfig(cir=10, cburst=1, pir=5, pburst=1))),
            modify(_meter(externs, 1, p4r.MeterConfig(cir=-1, cburst=1, pir=5, pburst=1))),
            modify(_meter(externs, 16, CONFIG)),
        )
    errors = write_errors(info.value)
    assert [c.name for c, _ in errors] == [
        "INVALID_ARGUMENT",
        "INVALID_ARGUMENT",
        "OUT_OF_RANGE",
    ]
    assert "cir 10 is above pir 5" in errors[0][1]


def test_direct_meter(externs_client: Client, externs: Program) -> None:
    externs_client.write(insert(forward_entry(externs)))
    entity = p4r.Entity(direct_meter_entry=p4r.DirectMeterEntry(table_entry=forward_entry(externs)))
    [before] = externs_client.read(entity)
    assert not before.direct_meter_entry.HasField("config")
    entity.direct_meter_entry.config.CopyFrom(CONFIG)
    externs_client.write(modify(entity))
    query = p4r.Entity(direct_meter_entry=p4r.DirectMeterEntry())
    [after] = externs_client.read(query)
    assert after.direct_meter_entry.config == CONFIG
    assert after.direct_meter_entry.table_entry.match == forward_entry(externs).match


def test_a_direct_meter_write_without_config_resets_it(
    externs_client: Client, externs: Program
) -> None:
    externs_client.write(insert(forward_entry(externs)))
    entity = p4r.Entity(direct_meter_entry=p4r.DirectMeterEntry(table_entry=forward_entry(externs)))
    entity.direct_meter_entry.config.CopyFrom(CONFIG)
    externs_client.write(modify(entity))
    entity.direct_meter_entry.ClearField("config")
    externs_client.write(modify(entity))
    [after] = externs_client.read(entity)
    assert not after.direct_meter_entry.HasField("config")
