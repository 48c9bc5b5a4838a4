"""A small synchronous P4Runtime client for tests: streams, writes, reads, error details."""

import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from finsy.proto import p4i, p4r, p4r_grpc, rpc_status
from google.protobuf import text_format

MEMORY_PORTS = (1, 2, 3)
ROUTE_PREFIX = bytes([10, 0, 1, 0])
NEXT_HOP_MAC = bytes.fromhex("000000000101")
ROUTER_MAC = bytes.fromhex("000000000001")
ROUTE_PORT = 2


@dataclass(frozen=True)
class Program:
    """A compiled program as the P4Runtime messages carry it."""

    p4info: p4i.P4Info
    device_config: bytes

    @classmethod
    def load(cls, p4info_path: Path, json_path: Path) -> "Program":
        p4info = text_format.Parse(p4info_path.read_text(), p4i.P4Info())
        return cls(p4info, json_path.read_bytes())

    @classmethod
    def compile(cls, source: Path, out_dir: Path) -> "Program":
        """`source` compiled into `out_dir` and loaded."""
        # Imported here: clients run in test namespaces import this module without tests/.
        from programs import compile_program

        compiled = compile_program(source, out_dir)
        return cls.load(compiled.p4info_path, compiled.json_path)

    def table_id(self, name: str) -> int:
        return next(t.preamble.id for t in self.p4info.tables if t.preamble.name == name)

    def action_id(self, name: str) -> int:
        return next(a.preamble.id for a in self.p4info.actions if a.preamble.name == name)

    def id_of(self, kind: str, name: str) -> int:
        """The id of P4Info object `name` in section `kind` ("registers", "counters", ...)."""
        return next(o.preamble.id for o in getattr(self.p4info, kind) if o.preamble.name == name)

    def config(self, cookie: int | None = None) -> p4r.ForwardingPipelineConfig:
        config = p4r.ForwardingPipelineConfig(
            p4info=self.p4info, p4_device_config=self.device_config
        )
        if cookie is not None:
            config.cookie.cookie = cookie
        return config


class Stream:
    """One StreamChannel; received messages are queued by a reader thread."""

    def __init__(self, stub: p4r_grpc.P4RuntimeStub) -> None:
        self._out: queue.Queue[p4r.StreamMessageRequest | None] = queue.Queue()
        self.received: queue.Queue[p4r.StreamMessageResponse | grpc.RpcError] = queue.Queue()
        self._call = stub.StreamChannel(iter(self._out.get, None))
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        try:
            for message in self._call:
                self.received.put(message)
        except grpc.RpcError as exc:
            self.received.put(exc)

    def send(self, message: p4r.StreamMessageRequest) -> None:
        self._out.put(message)

    def arbitrate(self, election_id: int, device_id: int = 0) -> None:
        self.send(
            p4r.StreamMessageRequest(
                arbitration=p4r.MasterArbitrationUpdate(
                    device_id=device_id, election_id=p4r.Uint128(high=0, low=election_id)
                )
            )
        )

    def next(self, timeout: float = 30) -> p4r.StreamMessageResponse | grpc.RpcError:
        return self.received.get(timeout=timeout)

    def close(self) -> None:
        self._out.put(None)
        self._call.cancel()
        self._reader.join(timeout=5)


class Client:
    """A P4Runtime client for device 0 with a fixed election id."""

    def __init__(self, port: int, election_id: int = 1) -> None:
        self.channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        self.stub = p4r_grpc.P4RuntimeStub(self.channel)
        self.election_id = election_id
        self.streams: list[Stream] = []

    def stream(self) -> Stream:
        stream = Stream(self.stub)
        self.streams.append(stream)
        return stream

    def become_primary(self) -> p4r.StreamMessageResponse:
        stream = self.stream()
        stream.arbitrate(self.election_id)
        reply = stream.next()
        assert isinstance(reply, p4r.StreamMessageResponse), reply
        return reply

    def _election(self) -> p4r.Uint128:
        return p4r.Uint128(high=0, low=self.election_id)

    def set_pipeline(
        self,
        config: p4r.ForwardingPipelineConfig | None,
        action: int = p4r.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT,
        device_id: int = 0,
    ) -> None:
        request = p4r.SetForwardingPipelineConfigRequest(
            device_id=device_id, election_id=self._election(), action=action
        )
        if config is not None:
            request.config.CopyFrom(config)
        self.stub.SetForwardingPipelineConfig(request)

    def get_pipeline(self, response_type: int) -> p4r.ForwardingPipelineConfig:
        request = p4r.GetForwardingPipelineConfigRequest(device_id=0, response_type=response_type)
        return self.stub.GetForwardingPipelineConfig(request).config

    def write(self, *updates: p4r.Update, device_id: int = 0) -> None:
        request = p4r.WriteRequest(
            device_id=device_id, election_id=self._election(), updates=list(updates)
        )
        self.stub.Write(request)

    def read(self, *entities: p4r.Entity) -> list[p4r.Entity]:
        request = p4r.ReadRequest(device_id=0, entities=list(entities))
        return [e for reply in self.stub.Read(request) for e in reply.entities]

    def close(self) -> None:
        for stream in self.streams:
            stream.close()
        self.channel.close()


def primary_with(port: int, program: Program) -> Iterator[Client]:
    """A primary client (election id 10) that has pushed `program`; closed afterwards.
    For fixtures: `yield from primary_with(port, program)`."""
    client = Client(port, election_id=10)
    try:
        client.become_primary()
        client.set_pipeline(program.config())
        yield client
    finally:
        client.close()


def update(kind: int, entry: p4r.TableEntry) -> p4r.Update:
    return p4r.Update(type=kind, entity=p4r.Entity(table_entry=entry))


def write_errors(exc: grpc.RpcError) -> list[tuple[grpc.StatusCode, str]]:
    """The per-update (code, message) list of a failed Write, from its status details."""
    assert exc.code() == grpc.StatusCode.UNKNOWN, exc
    details = dict(exc.trailing_metadata() or ())
    status = rpc_status.Status.FromString(details["grpc-status-details-bin"])
    result = []
    for detail in status.details:
        error = p4r.Error()
        assert detail.Unpack(error)
        result.append((_code(error.canonical_code), error.message))
    return result


def _code(value: int) -> grpc.StatusCode:
    return next(c for c in grpc.StatusCode if c.value[0] == value)


def route_entry(
    l3: Program,
    prefix: bytes = ROUTE_PREFIX,
    prefix_len: int = 24,
    port: int = ROUTE_PORT,
    dst_mac: bytes = NEXT_HOP_MAC,
) -> p4r.TableEntry:
    """ipv4_lpm: prefix/prefix_len -> ipv4_forward(dst_mac, ROUTER_MAC, port)."""
    return p4r.TableEntry(
        table_id=l3.table_id("MyIngress.ipv4_lpm"),
        match=[
            p4r.FieldMatch(field_id=1, lpm=p4r.FieldMatch.LPM(value=prefix, prefix_len=prefix_len))
        ],
        action=p4r.TableAction(
            action=p4r.Action(
                action_id=l3.action_id("MyIngress.ipv4_forward"),
                params=[
                    p4r.Action.Param(param_id=1, value=dst_mac),
                    p4r.Action.Param(param_id=2, value=ROUTER_MAC),
                    p4r.Action.Param(param_id=3, value=port.to_bytes(2, "big")),
                ],
            )
        ),
    )


def insert(entry: p4r.TableEntry) -> p4r.Update:
    return update(p4r.Update.INSERT, entry)


def modify(entity: p4r.Entity) -> p4r.Update:
    return p4r.Update(type=p4r.Update.MODIFY, entity=entity)


def output_of(dataplane: Any, timeout: float = 30) -> list[tuple[int, bytes]]:
    """The first (port, packet) batch the dataplane sends out within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if output := dataplane.take_output():
            return output
        time.sleep(0.01)
    return []
