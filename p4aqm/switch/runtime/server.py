"""The P4Runtime gRPC service of the switch (grpc.aio), and a way to run it.

All state lives on the server's event loop: handlers run one at a time between awaits,
so the table store, the pipeline and the arbitrator need no locks.
"""

import asyncio
import logging
import threading
from collections.abc import AsyncIterator, Callable

import grpc
from finsy.proto import gnmi_grpc, p4r, p4r_grpc, rpc_code, rpc_status
from google.protobuf import any_pb2

from p4aqm.switch.gnmi.service import GnmiService
from p4aqm.switch.runtime.arbitration import Arbitrator, Stream
from p4aqm.switch.runtime.controller_io import ControllerIo
from p4aqm.switch.runtime.dataplane import DataplaneApi
from p4aqm.switch.runtime.entities import Entities
from p4aqm.switch.runtime.errors import (
    P4RuntimeError,
    call_dataplane,
    invalid,
    not_found,
    unimplemented,
)
from p4aqm.switch.runtime.pipeline import Pipeline
from p4aqm.switch.runtime.status import status

LOG = logging.getLogger("p4aqm.switch.runtime")

P4RUNTIME_API_VERSION = "1.4.1"
# Entities per ReadResponse, so that a large table does not make one huge message.
READ_BATCH = 1000
_JSON_REJECTED = "BMv2 JSON rejected by the dataplane"

_Config = p4r.SetForwardingPipelineConfigRequest
_GetConfig = p4r.GetForwardingPipelineConfigRequest


class P4RuntimeService(p4r_grpc.P4RuntimeServicer):
    """P4Runtime for one device whose packet path is `dataplane`."""

    def __init__(
        self,
        dataplane: DataplaneApi,
        device_id: int = 0,
        scratch_dataplane: Callable[[], DataplaneApi] | None = None,
    ) -> None:
        self._dp = dataplane
        self._device_id = device_id
        # A config is verified by loading its JSON into a throwaway dataplane, so that a
        # bad config never disturbs the running one.
        self._scratch = scratch_dataplane or type(dataplane)
        self._arbitrator = Arbitrator(device_id)
        self._config: p4r.ForwardingPipelineConfig | None = None
        self._entities: Entities | None = None
        self._saved: Pipeline | None = None
        # The source program of the running pipeline, for the log.
        self._program: str | None = None
        self._io = ControllerIo(dataplane, self._arbitrator, lambda: self._entities)

    def start(self) -> None:
        """Start delivering packet-ins and digests; call on the event loop that serves
        the RPCs."""
        self._io.start()

    async def stop(self) -> None:
        await self._io.stop()

    def load_device_config(self, bmv2_json: bytes) -> None:
        """Load a BMv2 JSON at start-up, without P4Info (like simple_switch_grpc's
        positional JSON file): packets flow, but tables wait for a pipeline push."""
        call_dataplane(self._dp.load_pipeline, bmv2_json, error_prefix=_JSON_REJECTED)
        self._config = p4r.ForwardingPipelineConfig(p4_device_config=bmv2_json)
        self._entities = None
        self._program = "the JSON given at start-up"
        LOG.info("pipeline loaded from the command line; no P4Info until a client pushes one")

    # -- unary RPCs -------------------------------------------------------------------

    async def Capabilities(
        self, request: p4r.CapabilitiesRequest, context: grpc.aio.ServicerContext
    ) -> p4r.CapabilitiesResponse:
        return p4r.CapabilitiesResponse(p4runtime_api_version=P4RUNTIME_API_VERSION)

    async def SetForwardingPipelineConfig(
        self, request: p4r.SetForwardingPipelineConfigRequest, context: grpc.aio.ServicerContext
    ) -> p4r.SetForwardingPipelineConfigResponse:
        async with status(context, LOG):
            self._check_device(request.device_id)
            self._check_primary(request.role, request, "SetForwardingPipelineConfig")
            self._set_config(request)
        return p4r.SetForwardingPipelineConfigResponse()

    def _set_config(self, request: p4r.SetForwardingPipelineConfigRequest) -> None:
        action = request.action
        if action == _Config.RECONCILE_AND_COMMIT:
            raise unimplemented("RECONCILE_AND_COMMIT is not supported; use VERIFY_AND_COMMIT")
        if action == _Config.COMMIT:
            if self._saved is None:
                raise P4RuntimeError(
                    grpc.StatusCode.FAILED_PRECONDITION,
                    "COMMIT without a saved config: send VERIFY_AND_SAVE first",
                )
            self._commit(self._saved)
            return
        if action not in (_Config.VERIFY, _Config.VERIFY_AND_SAVE, _Config.VERIFY_AND_COMMIT):
            raise invalid(f"unknown SetForwardingPipelineConfig action {action}")
        pipeline = Pipeline(request.config)
        call_dataplane(
            self._scratch().load_pipeline, pipeline.bmv2_json, error_prefix=_JSON_REJECTED
        )
        if action == _Config.VERIFY_AND_SAVE:
            self._saved = pipeline
        elif action == _Config.VERIFY_AND_COMMIT:
            self._commit(pipeline)

    def _commit(self, pipeline: Pipeline) -> None:
        # Loading a pipeline clears all dataplane state, so the entry store starts empty.
        call_dataplane(self._dp.load_pipeline, pipeline.bmv2_json, error_prefix=_JSON_REJECTED)
        self._config = pipeline.config
        self._entities = Entities(self._dp, pipeline)
        self._saved = None
        names = ", ".join(t.name for t in pipeline.tables.values()) or "(none)"
        if self._program is None:
            LOG.info("pipeline loaded: %s; tables: %s", pipeline.program, names)
        else:
            cleared = "tables, registers and counters cleared"
            LOG.info(
                "pipeline replaced (%s -> %s): %s; tables: %s",
                self._program,
                pipeline.program,
                cleared,
                names,
            )
        self._program = pipeline.program

    async def GetForwardingPipelineConfig(
        self, request: p4r.GetForwardingPipelineConfigRequest, context: grpc.aio.ServicerContext
    ) -> p4r.GetForwardingPipelineConfigResponse:
        async with status(context, LOG):
            self._check_device(request.device_id)
            if self._config is None:
                raise P4RuntimeError(
                    grpc.StatusCode.FAILED_PRECONDITION,
                    f"no forwarding pipeline config set for device {self._device_id}",
                )
            config = p4r.ForwardingPipelineConfig()
            kind = request.response_type
            if self._config.HasField("cookie"):
                config.cookie.CopyFrom(self._config.cookie)
            if kind == _GetConfig.ALL:
                config.CopyFrom(self._config)
            elif kind == _GetConfig.P4INFO_AND_COOKIE:
                if self._config.HasField("p4info"):
                    config.p4info.CopyFrom(self._config.p4info)
            elif kind == _GetConfig.DEVICE_CONFIG_AND_COOKIE:
                config.p4_device_config = self._config.p4_device_config
            elif kind != _GetConfig.COOKIE_ONLY:
                raise invalid(f"unknown response_type {kind}")
        return p4r.GetForwardingPipelineConfigResponse(config=config)

    async def Write(
        self, request: p4r.WriteRequest, context: grpc.aio.ServicerContext
    ) -> p4r.WriteResponse:
        async with status(context, LOG):
            self._check_device(request.device_id)
            self._check_primary(request.role, request, "Write")
            entities = self._require_entities()
            if request.atomicity != p4r.WriteRequest.CONTINUE_ON_ERROR:
                name = p4r.WriteRequest.Atomicity.Name(request.atomicity)
                raise unimplemented(f"atomicity {name} is not supported; use CONTINUE_ON_ERROR")
        errors = [_apply_update(entities, update) for update in request.updates]
        failed = [e for e in errors if e is not None]
        if failed:
            await _abort_with_update_errors(context, errors, len(failed))
        return p4r.WriteResponse()

    async def Read(
        self, request: p4r.ReadRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[p4r.ReadResponse]:
        found: list[p4r.Entity] = []
        async with status(context, LOG):
            self._check_device(request.device_id)
            entities = self._require_entities()
            for entity in request.entities:
                found += entities.read(entity)
        # An empty result is still one (empty) response, as clients expect.
        for start in range(0, max(len(found), 1), READ_BATCH):
            yield p4r.ReadResponse(entities=found[start : start + READ_BATCH])

    # -- the stream -------------------------------------------------------------------

    async def StreamChannel(
        self,
        request_iterator: AsyncIterator[p4r.StreamMessageRequest],
        context: grpc.aio.ServicerContext,
    ) -> None:
        stream = Stream()
        writer = asyncio.create_task(_drain(stream, context))
        try:
            while (request := await context.read()) is not grpc.aio.EOF:
                kind = request.WhichOneof("update")
                if kind == "arbitration":
                    self._arbitrator.arbitrate(stream, request.arbitration)
                elif kind in ("packet", "digest_ack"):
                    self._controller_message(stream, request, kind)
                else:
                    LOG.warning("StreamChannel: %s messages are not supported yet", kind)
                    stream.queue.put_nowait(_stream_error(request, kind))
            # The client half-closed: the stream is over, so its arbitration is released
            # now (as P4Runtime and PI do), not after the flush below, which lasts until
            # the client reads what is queued for it, if it ever does. A reconnect with
            # the same election id, or the next highest one, takes over at once.
            self._arbitrator.remove(stream)
            stream.queue.put_nowait(None)
            await writer
        except P4RuntimeError as exc:
            # Arbitration failures close the stream with the status, as P4Runtime says;
            # released first, so that the client never sees the status before that.
            writer.cancel()
            self._arbitrator.remove(stream)
            await context.abort(exc.code, exc.message)
        finally:
            # Cancellation and a lost connection end here (gRPC cancels this handler):
            # released at once too. remove() forgets a stream only once.
            writer.cancel()
            self._arbitrator.remove(stream)

    def _controller_message(
        self, stream: Stream, request: p4r.StreamMessageRequest, kind: str
    ) -> None:
        try:
            if kind == "packet":
                self._io.packet_out(stream, request.packet)
            else:
                self._io.digest_ack(request.digest_ack)
        except P4RuntimeError as exc:
            # A refused packet-out or ack is answered on the stream, which stays open.
            stream.queue.put_nowait(_stream_error(request, kind, exc))
        except Exception as exc:  # noqa: BLE001 - a bug must not close the stream
            LOG.exception("StreamChannel: unexpected error")
            error = P4RuntimeError(grpc.StatusCode.INTERNAL, f"internal error: {exc!r}")
            stream.queue.put_nowait(_stream_error(request, kind, error))

    # -- checks -----------------------------------------------------------------------

    def _check_device(self, device_id: int) -> None:
        if device_id != self._device_id:
            raise not_found(f"unknown device id {device_id}; this is device {self._device_id}")

    def _check_primary(
        self,
        role: str,
        request: p4r.WriteRequest | p4r.SetForwardingPipelineConfigRequest,
        rpc: str,
    ) -> None:
        election_id = request.election_id if request.HasField("election_id") else None
        if not self._arbitrator.is_primary(role, election_id):
            raise P4RuntimeError(
                grpc.StatusCode.PERMISSION_DENIED,
                f"{rpc}: the client is not the primary of role '{role}' "
                "(open a StreamChannel and send the highest election id)",
            )

    def _require_entities(self) -> Entities:
        if self._entities is None:
            what = "no P4Info" if self._config is not None else "no forwarding pipeline config"
            raise P4RuntimeError(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"device {self._device_id} has {what}: push one with SetForwardingPipelineConfig",
            )
        return self._entities


def _apply_update(entities: Entities, update: p4r.Update) -> P4RuntimeError | None:
    try:
        entities.write(update)
    except P4RuntimeError as exc:
        return exc
    except Exception as exc:  # noqa: BLE001 - a bug must fail one update, not the server
        LOG.exception("Write: unexpected error")
        return P4RuntimeError(grpc.StatusCode.INTERNAL, f"internal error: {exc!r}")
    return None


async def _abort_with_update_errors(
    context: grpc.aio.ServicerContext, errors: list[P4RuntimeError | None], failed: int
) -> None:
    """Fail a Write as P4Runtime says: status UNKNOWN whose google.rpc.Status details hold
    one p4.v1.Error per update, in order (OK for the updates that were applied)."""
    status = rpc_status.Status(
        code=rpc_code.UNKNOWN, message=f"{failed} of {len(errors)} updates failed"
    )
    for error in errors:
        detail = any_pb2.Any()
        if error is None:
            detail.Pack(p4r.Error(canonical_code=rpc_code.OK))
        else:
            detail.Pack(p4r.Error(canonical_code=error.code.value[0], message=error.message))
        status.details.append(detail)
    await context.abort(
        grpc.StatusCode.UNKNOWN,
        status.message,
        trailing_metadata=(("grpc-status-details-bin", status.SerializeToString()),),
    )


def _stream_error(
    request: p4r.StreamMessageRequest, kind: str | None, exc: P4RuntimeError | None = None
) -> p4r.StreamMessageResponse:
    if exc is None:
        exc = unimplemented(f"StreamChannel: {kind or 'empty'} messages are not supported yet")
    error = p4r.StreamError(canonical_code=exc.code.value[0], message=exc.message)
    if kind == "packet":
        error.packet_out.packet_out.CopyFrom(request.packet)
    elif kind == "digest_ack":
        error.digest_list_ack.digest_list_ack.CopyFrom(request.digest_ack)
    return p4r.StreamMessageResponse(error=error)


async def _drain(stream: Stream, context: grpc.aio.ServicerContext) -> None:
    while (message := await stream.queue.get()) is not None:
        await context.write(message)


async def start_server(
    service: P4RuntimeService, address: str, gnmi_service: GnmiService | None = None
) -> tuple[grpc.aio.Server, int]:
    """Start serving `service`, and `gnmi_service` if given, on `address` (HOST:PORT;
    port 0 picks a free one). Returns the server and the port it listens on; raises
    OSError if it cannot listen."""
    server = grpc.aio.server()
    p4r_grpc.add_P4RuntimeServicer_to_server(service, server)
    if gnmi_service is not None:
        gnmi_grpc.add_gNMIServicer_to_server(gnmi_service, server)
    try:
        port = server.add_insecure_port(address)
    except RuntimeError as exc:
        raise OSError(f"cannot listen on {address}: {exc}") from None
    if port == 0:
        raise OSError(f"cannot listen on {address}")
    await server.start()
    service.start()
    return server, port


async def stop_server(
    server: grpc.aio.Server, service: P4RuntimeService, grace: float | None
) -> None:
    await server.stop(grace=grace)
    await service.stop()


class ServerThread:
    """The service on its own event loop in a background thread, for synchronous callers
    such as tests that drive the dataplane directly while clients talk gRPC."""

    def __init__(self, service: P4RuntimeService, address: str = "127.0.0.1:0") -> None:
        self._service = service
        self._address = address
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: grpc.aio.Server | None = None
        self.port = 0

    def start(self) -> int:
        self._thread.start()
        future = asyncio.run_coroutine_threadsafe(
            start_server(self._service, self._address), self._loop
        )
        try:
            self._server, self.port = future.result(timeout=10)
        except BaseException:
            self.stop()
            raise
        return self.port

    def stop(self) -> None:
        if self._server is not None:
            asyncio.run_coroutine_threadsafe(
                stop_server(self._server, self._service, None), self._loop
            ).result(10)
            self._server = None
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()
