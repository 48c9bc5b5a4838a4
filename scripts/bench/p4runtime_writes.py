"""P4Runtime table inserts per second into `p4aqm switch`, batched and one by one.

Method: the switch runs with no interfaces; a raw gRPC client (finsy's generated stubs,
no client library logic in the timed part) becomes primary, pushes l3_forward, and sends
pre-built WriteRequests inserting distinct /32 routes into MyIngress.ipv4_lpm. Only the
Write RPCs are timed. l3_forward's table holds 1024 entries, so each round inserts one
batch of BATCH routes, timed, and deletes it again, untimed. One-update requests are the
baseline measured in the same run.
"""

import queue
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import grpc
from finsy.proto import p4i, p4r, p4r_grpc
from google.protobuf import text_format

from build import REPO, compile_to

BATCH = 1000
ROUNDS = 20
SINGLE_ENTRIES = 1000


@dataclass(frozen=True)
class WriteRate:
    label: str
    entries: int
    seconds: float

    @property
    def per_second(self) -> float:
        return self.entries / self.seconds


def _ids(p4info: p4i.P4Info) -> tuple[int, int, int, list[int]]:
    table = next(t for t in p4info.tables if t.preamble.name == "MyIngress.ipv4_lpm")
    action = next(a for a in p4info.actions if a.preamble.name == "MyIngress.ipv4_forward")
    return (
        table.preamble.id,
        table.match_fields[0].id,
        action.preamble.id,
        [p.id for p in action.params],
    )


def _updates(
    p4info: p4i.P4Info, count: int, kind: p4r.Update.Type = p4r.Update.INSERT
) -> list[p4r.Update]:
    table_id, field_id, action_id, param_ids = _ids(p4info)
    params = [b"\x00\x00\x00\x00\x02\x02", b"\x00\x00\x00\x00\x02\xff", b"\x02"]
    updates = []
    for n in range(count):
        entry = p4r.TableEntry(table_id=table_id)
        match = entry.match.add(field_id=field_id)
        match.lpm.value = (0x0B000000 + n).to_bytes(4, "big")
        match.lpm.prefix_len = 32
        entry.action.action.action_id = action_id
        for param_id, value in zip(param_ids, params, strict=True):
            entry.action.action.params.add(param_id=param_id, value=value)
        updates.append(p4r.Update(type=kind, entity=p4r.Entity(table_entry=entry)))
    return updates


def _requests(updates: list[p4r.Update], batch: int) -> list[p4r.WriteRequest]:
    election = p4r.Uint128(high=0, low=1)
    return [
        p4r.WriteRequest(device_id=0, election_id=election, updates=updates[i : i + batch])
        for i in range(0, len(updates), batch)
    ]


def _become_primary(stub: p4r_grpc.P4RuntimeStub) -> grpc.Future:
    """Open the stream that makes this client primary; it must stay open while writing."""
    outbox: queue.Queue = queue.Queue()
    outbox.put(
        p4r.StreamMessageRequest(
            arbitration=p4r.MasterArbitrationUpdate(
                device_id=0, election_id=p4r.Uint128(high=0, low=1)
            )
        )
    )
    stream = stub.StreamChannel(iter(outbox.get, None))
    next(stream)  # the arbitration answer
    return stream


def run() -> list[WriteRate]:
    p4aqm = str(Path(sys.executable).parent / "p4aqm")
    switch = subprocess.Popen(
        [p4aqm, "switch", "--no-p4", "--grpc-server-addr", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert switch.stdout is not None
        ready = switch.stdout.readline()
        port = re.search(r"listening on \S+:(\d+)", ready)
        if not port:
            raise SystemExit(f"bench: switch did not start: {ready}")
        with tempfile.TemporaryDirectory() as tmp:
            json_path, p4info_path = compile_to(REPO / "p4src" / "l3_forward.p4", Path(tmp))
            p4info = text_format.Parse(p4info_path.read_text(), p4i.P4Info())
            with grpc.insecure_channel(f"127.0.0.1:{port.group(1)}") as channel:
                stub = p4r_grpc.P4RuntimeStub(channel)
                stream = _become_primary(stub)
                stub.SetForwardingPipelineConfig(
                    p4r.SetForwardingPipelineConfigRequest(
                        device_id=0,
                        election_id=p4r.Uint128(high=0, low=1),
                        action=p4r.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT,
                        config=p4r.ForwardingPipelineConfig(
                            p4info=p4info, p4_device_config=json_path.read_bytes()
                        ),
                    )
                )
                inserts = _updates(p4info, BATCH)
                deletes = _requests(_updates(p4info, BATCH, p4r.Update.DELETE), BATCH)
                single = _timed(stub, _requests(inserts[:SINGLE_ENTRIES], 1))
                _timed(stub, deletes)
                batched = 0.0
                for _ in range(ROUNDS):
                    batched += _timed(stub, _requests(inserts, BATCH))
                    _timed(stub, deletes)
                rates = [
                    WriteRate("one update per Write", SINGLE_ENTRIES, single),
                    WriteRate(f"batches of {BATCH}", ROUNDS * BATCH, batched),
                ]
                stream.cancel()
        return rates
    finally:
        switch.terminate()
        switch.wait(timeout=10)


def _timed(stub: p4r_grpc.P4RuntimeStub, requests: list[p4r.WriteRequest]) -> float:
    start = time.perf_counter()
    for request in requests:
        stub.Write(request)
    return time.perf_counter() - start
