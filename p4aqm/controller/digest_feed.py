"""Queue samples as digests, for a switch whose P4Runtime server does not read registers
(BMv2). The AQM programs send a `queue_sample_t` digest on an arrival at a port whose
`queue_sampling` entry gives a period, at most once per period
(p4src/include/queue_sampler.p4). This feed becomes primary on a stream, enables the
digest, installs the ports' entries, and keeps the latest sample of each port and
traffic class; the sampler's ticks read it.
"""

import queue
import threading
from dataclasses import dataclass

import grpc
from finsy.proto import p4i, p4r, p4r_grpc

DIGEST = "queue_sample_t"
TABLE = "MyIngress.queue_sampler.queue_sampling"
ACTION = "MyIngress.queue_sampler.set_sample_period"


@dataclass(frozen=True)
class QueueSample:
    """One digest: the port's (or CBT class's) occupancy and average after an arrival."""

    port: int
    traffic_class: int
    occupancy: int
    avg: int
    time_us: int


def _id(objects: list, name: str, what: str) -> int:
    found = [o.preamble.id for o in objects if o.preamble.name == name]
    if not found:
        raise ValueError(f"the P4Info has no {what} '{name}': the program sends no queue samples")
    return found[0]


def _minimal(value: int) -> bytes:
    """P4Runtime's canonical bytestring: the fewest bytes, at least one."""
    return value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")


class DigestFeed:
    """The latest QueueSample per (port, traffic class), kept by a thread that reads the
    stream and acknowledges every digest list."""

    def __init__(
        self,
        channel: grpc.Channel,
        p4info: p4i.P4Info,
        device_id: int,
        election_id: int,
        ports: list[int],
        period_s: float,
    ) -> None:
        self._digest_id = _id(list(p4info.digests), DIGEST, "digest")
        table_id = _id(list(p4info.tables), TABLE, "table")
        action_id = _id(list(p4info.actions), ACTION, "action")
        self._device_id = device_id
        self._election = p4r.Uint128(high=0, low=election_id)
        self._stub = p4r_grpc.P4RuntimeStub(channel)
        self._outbox: queue.Queue[p4r.StreamMessageRequest | None] = queue.Queue()
        self._latest: dict[tuple[int, int], QueueSample] = {}
        self._lock = threading.Lock()
        self._stream = self._stub.StreamChannel(iter(self._outbox.get, None))
        self._outbox.put(
            p4r.StreamMessageRequest(
                arbitration=p4r.MasterArbitrationUpdate(
                    device_id=device_id, election_id=self._election
                )
            )
        )
        reply = next(self._stream)
        if reply.arbitration.status.code != 0:  # google.rpc.Code OK: this stream is primary
            raise ValueError(f"queue samples: not primary ({reply.arbitration.status.message})")
        period_us = max(1, round(period_s * 1e6))
        digest = p4r.DigestEntry(
            digest_id=self._digest_id,
            config=p4r.DigestEntry.Config(max_timeout_ns=0, max_list_size=1, ack_timeout_ns=0),
        )
        updates = [p4r.Update(type=p4r.Update.INSERT, entity=p4r.Entity(digest_entry=digest))]
        for port in ports:
            entry = p4r.TableEntry(table_id=table_id)
            entry.match.add(field_id=1).exact.value = _minimal(port)
            entry.action.action.action_id = action_id
            entry.action.action.params.add(param_id=1, value=_minimal(period_us))
            updates.append(p4r.Update(type=p4r.Update.INSERT, entity=p4r.Entity(table_entry=entry)))
        self._stub.Write(
            p4r.WriteRequest(device_id=device_id, election_id=self._election, updates=updates)
        )
        self._reader = threading.Thread(target=self._read, name="queue-samples", daemon=True)
        self._reader.start()

    def latest(self) -> dict[tuple[int, int], QueueSample]:
        with self._lock:
            return dict(self._latest)

    def _read(self) -> None:
        try:
            for reply in self._stream:
                if reply.HasField("digest") and reply.digest.digest_id == self._digest_id:
                    self._take(reply.digest)
        except grpc.RpcError:
            return  # the stream ended (close(), or the switch went away)

    def _take(self, digests: p4r.DigestList) -> None:
        for data in digests.data:
            port, traffic_class, occupancy, avg, time_us = (
                int.from_bytes(m.bitstring, "big") for m in data.struct.members
            )
            with self._lock:
                self._latest[(port, traffic_class)] = QueueSample(
                    port, traffic_class, occupancy, avg, time_us
                )
        self._outbox.put(
            p4r.StreamMessageRequest(
                digest_ack=p4r.DigestListAck(digest_id=digests.digest_id, list_id=digests.list_id)
            )
        )

    def close(self) -> None:
        self._outbox.put(None)
        self._reader.join(timeout=2)
