"""Ending a gRPC call with the status of what went wrong, for every service of the switch."""

import contextlib
import logging
from collections.abc import AsyncIterator

import grpc

from p4aqm.switch.runtime.errors import P4RuntimeError


@contextlib.asynccontextmanager
async def status(context: grpc.aio.ServicerContext, log: logging.Logger) -> AsyncIterator[None]:
    """End the RPC with the status of a P4RuntimeError raised in the block; any other
    exception is a server bug, reported as INTERNAL instead of crashing the handler."""
    try:
        yield
    except P4RuntimeError as exc:
        await context.abort(exc.code, exc.message)
    except grpc.aio.AbortError:
        raise
    except Exception as exc:  # noqa: BLE001
        log.exception("internal error")
        await context.abort(grpc.StatusCode.INTERNAL, f"internal error: {exc!r}")
