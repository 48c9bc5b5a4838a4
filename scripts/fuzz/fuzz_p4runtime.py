"""Fuzzing the switch's P4Runtime server with atheris: malformed and inconsistent requests.

A `p4aqm switch` process runs l3_value_sets.p4 (l3_forward's table and two parser value
sets); this client is primary. Each input becomes one request built from the fuzzer's
bytes: Write batches with valid or unknown table, field, action and param ids, wrong
bitwidths, odd match kinds and priorities; value set writes and reads with valid or
unknown ids, fields and widths; wildcard and bogus Reads; pipeline pushes of mutated
P4Info and JSON; and raw protobuf bytes. The
server may refuse anything, but only with a status that names the problem: an UNKNOWN
"Unexpected ..." (an unhandled exception), INTERNAL, or a dead server is a crash.

    .venv/bin/python scripts/fuzz/fuzz_p4runtime.py -max_total_time=600 [corpus dir]
"""

import queue
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import atheris
import grpc
from finsy.proto import p4i, p4r, p4r_grpc
from google.protobuf import message, text_format
from harness import fuzz

from p4aqm.compiler.cli import main as compile_main
from p4aqm.topology.netlab import DIE_WITH_PARENT

REPO = Path(__file__).resolve().parents[2]
WORK = Path(tempfile.mkdtemp(prefix="p4aqm-fuzz-p4rt-"))
ELECTION = p4r.Uint128(high=0, low=1)
CRASH_CODES = (grpc.StatusCode.INTERNAL,)


def _compile() -> tuple[bytes, p4i.P4Info]:
    json_path, info_path = WORK / "l3.json", WORK / "l3.p4info.txtpb"
    source = str(Path(__file__).parent / "l3_value_sets.p4")
    if compile_main([source, "-o", str(json_path), "--p4runtime-files", str(info_path)]):
        raise SystemExit("fuzz: l3_value_sets.p4 does not compile")
    return json_path.read_bytes(), text_format.Parse(info_path.read_text(), p4i.P4Info())


BMV2_JSON, P4INFO = _compile()
TABLE_IDS = [t.preamble.id for t in P4INFO.tables]
ACTION_IDS = [a.preamble.id for a in P4INFO.actions]
VALUE_SET_IDS = [v.preamble.id for v in P4INFO.value_sets]


def _start_switch() -> tuple[subprocess.Popen[str], p4r_grpc.P4RuntimeStub]:
    p4aqm = str(Path(sys.executable).parent / "p4aqm")
    switch = subprocess.Popen(
        [*DIE_WITH_PARENT, p4aqm, "switch", "--no-p4", "--grpc-server-addr", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert switch.stdout is not None
    port = re.search(r"listening on \S+:(\d+)", switch.stdout.readline())
    if not port:
        raise SystemExit("fuzz: the switch did not start")
    return switch, p4r_grpc.P4RuntimeStub(grpc.insecure_channel(f"127.0.0.1:{port.group(1)}"))


SWITCH, STUB = _start_switch()
_outbox: queue.Queue = queue.Queue()
_outbox.put(
    p4r.StreamMessageRequest(
        arbitration=p4r.MasterArbitrationUpdate(device_id=0, election_id=ELECTION)
    )
)
STREAM = STUB.StreamChannel(iter(_outbox.get, None))
next(STREAM)


def _push(p4info: p4i.P4Info, device_config: bytes, action: int) -> None:
    STUB.SetForwardingPipelineConfig(
        p4r.SetForwardingPipelineConfigRequest(
            device_id=0,
            election_id=ELECTION,
            action=action,
            config=p4r.ForwardingPipelineConfig(p4info=p4info, p4_device_config=device_config),
        )
    )


_push(P4INFO, BMV2_JSON, p4r.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT)


def _pick(fdp: atheris.FuzzedDataProvider, valid: list[int]) -> int:
    if valid and fdp.ConsumeBool():
        return fdp.PickValueInList(valid)
    return fdp.ConsumeIntInRange(0, 2**32 - 1)


def _table_entry(fdp: atheris.FuzzedDataProvider) -> p4r.TableEntry:
    entry = p4r.TableEntry(table_id=_pick(fdp, TABLE_IDS))
    for _ in range(fdp.ConsumeIntInRange(0, 3)):
        match = entry.match.add(field_id=fdp.ConsumeIntInRange(0, 3))
        value = fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 9))
        kind = fdp.ConsumeIntInRange(0, 4)
        if kind == 0:
            match.exact.value = value
        elif kind == 1:
            match.lpm.value = value
            match.lpm.prefix_len = fdp.ConsumeIntInRange(-2, 40)
        elif kind == 2:
            match.ternary.value = value
            match.ternary.mask = fdp.ConsumeBytes(4)
        elif kind == 3:
            match.range.low = value
            match.range.high = fdp.ConsumeBytes(4)
        else:
            match.optional.value = value
    if fdp.ConsumeBool():
        action = entry.action.action
        action.action_id = _pick(fdp, ACTION_IDS)
        for _ in range(fdp.ConsumeIntInRange(0, 4)):
            action.params.add(
                param_id=fdp.ConsumeIntInRange(0, 4),
                value=fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 8)),
            )
    entry.priority = fdp.ConsumeIntInRange(-1, 3)
    entry.is_default_action = fdp.ConsumeProbability() < 0.2
    return entry


def _value_set_entry(fdp: atheris.FuzzedDataProvider) -> p4r.ValueSetEntry:
    entry = p4r.ValueSetEntry(value_set_id=_pick(fdp, VALUE_SET_IDS))
    for _ in range(fdp.ConsumeIntInRange(0, 10)):
        member = entry.members.add()
        for _ in range(fdp.ConsumeIntInRange(0, 3)):
            match = member.match.add(field_id=fdp.ConsumeIntInRange(0, 3))
            value = fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 4))
            if fdp.ConsumeProbability() < 0.8:
                match.exact.value = value
            else:
                match.ternary.value = value
                match.ternary.mask = fdp.ConsumeBytes(2)
    return entry


def _request(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    kind = fdp.ConsumeIntInRange(0, 5)
    if kind == 5:
        entity = p4r.Entity(value_set_entry=_value_set_entry(fdp))
        if fdp.ConsumeBool():
            update = p4r.Update(type=fdp.ConsumeIntInRange(0, 4), entity=entity)
            STUB.Write(p4r.WriteRequest(device_id=0, election_id=ELECTION, updates=[update]))
        else:
            list(STUB.Read(p4r.ReadRequest(device_id=0, entities=[entity])))
    elif kind <= 1:
        request = p4r.WriteRequest(device_id=fdp.ConsumeIntInRange(0, 1), election_id=ELECTION)
        for _ in range(fdp.ConsumeIntInRange(1, 4)):
            update = request.updates.add(type=fdp.ConsumeIntInRange(0, 4))
            update.entity.table_entry.CopyFrom(_table_entry(fdp))
        request.atomicity = fdp.ConsumeIntInRange(0, 2) if fdp.ConsumeBool() else 0
        STUB.Write(request)
    elif kind == 2:
        request = p4r.ReadRequest(device_id=0)
        request.entities.add().table_entry.CopyFrom(_table_entry(fdp))
        list(STUB.Read(request))
    elif kind == 3:
        info = p4i.P4Info()
        info.CopyFrom(P4INFO)
        if fdp.ConsumeBool() and info.tables:
            info.tables[0].match_fields[0].bitwidth = fdp.ConsumeIntInRange(0, 200)
        device_config = bytearray(BMV2_JSON)
        for _ in range(fdp.ConsumeIntInRange(0, 8)):
            device_config[fdp.ConsumeIntInRange(0, len(device_config) - 1)] = (
                fdp.ConsumeInt(1) & 255
            )
        # VERIFY only: a bad config must be refused without touching the running one.
        _push(info, bytes(device_config), p4r.SetForwardingPipelineConfigRequest.VERIFY)
    else:
        try:
            request = p4r.WriteRequest.FromString(fdp.ConsumeBytes(fdp.remaining_bytes()))
        except message.DecodeError:
            return
        STUB.Write(request)


def test_one_input(data: bytes) -> None:
    try:
        _request(data)
    except grpc.RpcError as exc:
        details = exc.details() or ""
        if exc.code() in CRASH_CODES or details.startswith("Unexpected"):
            raise RuntimeError(f"server failed: {exc.code()} {details}") from None
        if exc.code() == grpc.StatusCode.UNAVAILABLE or SWITCH.poll() is not None:
            raise RuntimeError("the switch process died") from None


def seeds() -> list[bytes]:
    return [bytes([kind]) + bytes(range(64)) for kind in range(6)]


if __name__ == "__main__":
    try:
        fuzz(test_one_input, seeds)
    finally:
        SWITCH.terminate()
