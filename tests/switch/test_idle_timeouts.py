"""P4Runtime idle timeouts, in real time on memory ports: an entry of a table with
support_timeout is reported once when idle for its idle_timeout_ns, a hit re-arms it,
and a read asking for time_since_last_hit gets it."""

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from finsy.proto import p4r
from switch_helpers import Client, Program, insert, update, write_errors

from programs import compile_program

TIMEOUT_NS = 300_000_000
PROGRAM = Path(__file__).resolve().parent / "programs" / "idle_timeout.p4"


@pytest.fixture(scope="module")
def idle_program(tmp_path_factory: pytest.TempPathFactory) -> Program:
    compiled = compile_program(PROGRAM, tmp_path_factory.mktemp("idle"))
    return Program.load(compiled.p4info_path, compiled.json_path)


@pytest.fixture
def idle_client(server_port: int, idle_program: Program) -> Iterator[Client]:
    client = Client(server_port, election_id=10)
    try:
        client.become_primary()
        client.set_pipeline(idle_program.config())
        yield client
    finally:
        client.close()


def _entry(program: Program, table: str, mac: int, timeout_ns: int) -> p4r.TableEntry:
    entry = p4r.TableEntry(
        table_id=program.table_id(table),
        match=[p4r.FieldMatch(field_id=1, exact=p4r.FieldMatch.Exact(value=bytes([mac])))],
        idle_timeout_ns=timeout_ns,
    )
    if table == "IngressImpl.forward":
        entry.action.action.action_id = program.action_id("IngressImpl.to_port")
        entry.action.action.params.add(param_id=1, value=b"\x02")
    else:
        entry.action.action.action_id = program.action_id("NoAction")
    return entry


def _notifications(client: Client, wait_s: float) -> list[p4r.IdleTimeoutNotification]:
    """The idle timeout notifications on the primary's stream within `wait_s`."""
    stream = client.streams[0]
    found = []
    deadline = time.monotonic() + wait_s
    while (left := deadline - time.monotonic()) > 0:
        try:
            message = stream.next(timeout=left)
        except Exception:  # noqa: BLE001 - queue.Empty: nothing more came
            break
        assert isinstance(message, p4r.StreamMessageResponse), message
        if message.HasField("idle_timeout_notification"):
            found.append(message.idle_timeout_notification)
    return found


def _hit(dataplane: Any, mac: int) -> None:
    frame = bytes(5) + bytes([mac]) + bytes(6) + b"\x08\x00" + bytes(50)
    dataplane.take_output()
    dataplane.inject(1, frame)
    deadline = time.monotonic() + 5
    while not dataplane.take_output() and time.monotonic() < deadline:
        time.sleep(0.01)


def test_an_idle_entry_is_reported_once_and_a_hit_rearms_it(
    idle_client: Client, idle_program: Program, dataplane: Any
) -> None:
    aging = _entry(idle_program, "IngressImpl.forward", 0x0A, TIMEOUT_NS)
    idle_client.write(insert(aging), insert(_entry(idle_program, "IngressImpl.forward", 0x0B, 0)))

    [notification] = _notifications(idle_client, 1.5)
    [reported] = notification.table_entry
    assert reported.match == aging.match
    assert reported.idle_timeout_ns == TIMEOUT_NS
    assert reported.time_since_last_hit.elapsed_ns >= TIMEOUT_NS
    assert notification.timestamp > 0

    # Reported once: nothing more while it stays idle.
    assert _notifications(idle_client, 0.6) == []

    # A hit re-arms it; a read asking for the hit time sees it was just hit.
    _hit(dataplane, 0x0A)
    query = p4r.Entity(table_entry=_entry(idle_program, "IngressImpl.forward", 0x0A, 0))
    query.table_entry.time_since_last_hit.elapsed_ns = 0
    [read] = idle_client.read(query)
    assert read.table_entry.idle_timeout_ns == TIMEOUT_NS
    assert read.table_entry.time_since_last_hit.elapsed_ns < TIMEOUT_NS
    [again] = _notifications(idle_client, 1.5)
    assert [e.match for e in again.table_entry] == [aging.match]

    # MODIFY sets a new timeout; 0 stops the reports.
    modified = _entry(idle_program, "IngressImpl.forward", 0x0A, 0)
    idle_client.write(update(p4r.Update.MODIFY, modified))
    assert _notifications(idle_client, 0.6) == []


def test_idle_timeouts_are_refused_where_the_table_has_none(
    idle_client: Client, idle_program: Program
) -> None:
    with pytest.raises(grpc.RpcError) as info:
        idle_client.write(insert(_entry(idle_program, "IngressImpl.plain", 0x0A, TIMEOUT_NS)))
    [(code, text)] = write_errors(info.value)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert "does not support idle timeouts" in text


def test_p4info_and_json_must_agree_on_idle_timeouts(
    idle_client: Client, idle_program: Program
) -> None:
    p4info = type(idle_program.p4info)()
    p4info.CopyFrom(idle_program.p4info)
    for table in p4info.tables:
        table.idle_timeout_behavior = table.NO_TIMEOUT
    with pytest.raises(grpc.RpcError) as info:
        idle_client.set_pipeline(Program(p4info, idle_program.device_config).config())
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "support_timeout disagree" in (info.value.details() or "")
