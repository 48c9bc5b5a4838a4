"""P4Runtime idle timeouts, in real time on memory ports and on veths: an entry of a
table with support_timeout is reported once when idle for its idle_timeout_ns, a hit
re-arms it, and a read asking for time_since_last_hit gets it."""

import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from finsy.proto import p4r
from switch_helpers import Client, Program, insert, primary_with, update, write_errors

from p4aqm.topology.netlab import TestNetwork
from programs import REPO, compile_program

TIMEOUT_NS = 300_000_000
PROGRAM = Path(__file__).resolve().parent / "programs" / "idle_timeout.p4"


@pytest.fixture(scope="module")
def idle_program(tmp_path_factory: pytest.TempPathFactory) -> Program:
    return Program.compile(PROGRAM, tmp_path_factory.mktemp("idle"))


@pytest.fixture
def idle_client(server_port: int, idle_program: Program) -> Iterator[Client]:
    yield from primary_with(server_port, idle_program)


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


def test_bad_idle_timeouts_are_refused(idle_client: Client, idle_program: Program) -> None:
    with pytest.raises(grpc.RpcError) as info:
        idle_client.write(insert(_entry(idle_program, "IngressImpl.plain", 0x0A, TIMEOUT_NS)))
    [(code, text)] = write_errors(info.value)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert "does not support idle timeouts" in text

    with pytest.raises(grpc.RpcError) as info:
        idle_client.write(insert(_entry(idle_program, "IngressImpl.forward", 0x0A, -1)))
    [(code, text)] = write_errors(info.value)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert "negative idle_timeout_ns" in text


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


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root for namespaces and veths")
def test_idle_timeouts_in_real_time_on_veths(tmp_path: Path) -> None:
    """`p4aqm switch` on veths, its packet threads hitting the entry while the server's
    sweep runs: no report while frames arrive every 100 ms for 1 s, then one report
    after the 300 ms timeout (by 2.5 s at most on this small machine), and none again."""
    compiled = compile_program(PROGRAM, tmp_path)
    env = f"PYTHONPATH={Path(__file__).resolve().parent}:{REPO}"
    client = Path(__file__).resolve().parent / "idle_timeout_veth_client.py"
    with TestNetwork(ports=2) as net:
        net.start_switch()
        run = net.run(
            ["env", env, sys.executable, str(client), str(compiled.p4info_path),
             str(compiled.json_path)],
            timeout_s=60,
        )  # fmt: skip
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert 0 <= result["hit_elapsed_ns"] < TIMEOUT_NS, result
    # The last frame went out 0.9 s or later after the write.
    [notified_s] = result["notified_s"]
    assert notified_s >= 0.9 + TIMEOUT_NS / 1e9, result
