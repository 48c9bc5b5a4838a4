"""The web server of one host: any number of connections on one asyncio loop.

    python -m p4aqm.traffic.web.server --listen ADDR:PORT [--records FILE] [--host-name NAME]

Each connection reads one request (traffic.web.protocol), sends the reply it asks for,
closes its side and waits for the client to close. By then the client has acknowledged
the whole reply, so TCP_INFO read then counts every retransmission of the reply, which
the client's own TCP_INFO does not see.

With --records, one record per connection: start_ns (CLOCK_REALTIME at accept),
duration_us, the client's address and port (to join the client's records), the bytes
asked and sent, the outcome (ok, short: the client closed before its whole request,
bad_request, reset, timeout: idle_timeout_s without progress, error: any other socket
error, cancelled: open when the server stopped) and TCP_INFO's total_retrans and
smoothed RTT. Runs until SIGTERM/SIGINT.
"""

import asyncio
import contextlib
import json
import signal
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
from pydantic import BaseModel, ConfigDict, Field

from p4aqm.traffic.cli import (
    ArgumentParser,
    check_records_flag,
    flag_of,
    model_from_args,
    raise_open_files_limit,
    run,
)
from p4aqm.traffic.endpoints import Endpoint, parse_endpoint
from p4aqm.traffic.records import RecordWriter, flush_periodically
from p4aqm.traffic.tcp_info import tcp_info
from p4aqm.traffic.web.protocol import HEADER, ProtocolError, decode_header

SCHEMA = pa.schema(
    [
        ("start_ns", pa.int64()),
        ("duration_us", pa.int64()),
        ("server_host", pa.string()),
        ("client_address", pa.string()),
        ("client_port", pa.int32()),
        ("request_bytes", pa.int64()),
        ("reply_bytes", pa.int64()),
        ("sent_bytes", pa.int64()),
        ("outcome", pa.string()),
        ("tcpi_total_retrans", pa.int64()),
        ("tcpi_rtt_us", pa.int64()),
    ]
)
_CHUNK = bytes(1 << 16)
# Waiting clients queue in the kernel rather than being refused when thousands of users
# connect at once; Linux caps this at net.core.somaxconn (4096 by default).
_BACKLOG = 4096


class ServerParams(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    host_name: str = ""
    idle_timeout_s: float = Field(60.0, gt=0)
    flush_interval_s: float = Field(5.0, gt=0)


class WebServer:
    def __init__(self, params: ServerParams, records_path: Path | None = None) -> None:
        self.params = params
        self._records_path = records_path
        self._records: RecordWriter | None = None
        self._flusher: asyncio.Task[None] | None = None
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task[None]] = set()
        self._outcomes: Counter[str] = Counter()
        self._sent_bytes = 0
        self._start_ns = 0

    async def start(self, listen: Endpoint) -> tuple[str, int]:
        """Listen; the address and port bound (the kernel's choice for port 0)."""
        self._start_ns = time.time_ns()
        if self._records_path is not None:
            metadata = {
                "kind": "web_server",
                "params": self.params.model_dump(),
                "listen": str(listen),
                "start_ns": self._start_ns,
            }
            self._records = RecordWriter(
                self._records_path, SCHEMA, metadata, self.params.flush_interval_s
            )
        try:
            self._server = await asyncio.start_server(
                self._serve, listen.address, listen.port, backlog=_BACKLOG, reuse_address=True
            )
        except OSError as error:
            raise ValueError(f"--listen {listen}: cannot listen: {error.strerror}") from None
        if self._records is not None:
            self._flusher = asyncio.create_task(flush_periodically(self._records))
        return self._server.sockets[0].getsockname()[:2]

    @property
    def open_connections(self) -> int:
        """Connections not finished yet (a runner can wait for 0 before stopping)."""
        return len(self._connections)

    async def stop(self) -> dict[str, Any]:
        """Stop listening, cut the open connections, write the records; the summary."""
        assert self._server is not None
        self._server.close()
        for task in self._connections:
            task.cancel()
        await asyncio.gather(*self._connections, return_exceptions=True)
        elapsed_s = (time.time_ns() - self._start_ns) / 1e9
        summary = {
            "host_name": self.params.host_name,
            "elapsed_s": round(elapsed_s, 3),
            "connections": sum(self._outcomes.values()),
            "outcomes": dict(self._outcomes),
            "sent_bps": round(8 * self._sent_bytes / elapsed_s),
        }
        if self._records is not None:
            assert self._flusher is not None
            self._flusher.cancel()
            self._records.close(summary)
        return summary

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        try:
            # Ending normally when stop() cancels: the record is written by then, and
            # asyncio would log a cancelled connection task as an error.
            with contextlib.suppress(asyncio.CancelledError):
                await self._reply(reader, writer)
        finally:
            self._connections.discard(task)

    async def _reply(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        loop = asyncio.get_running_loop()
        sock = writer.get_extra_info("socket")
        client_address, client_port = writer.get_extra_info("peername")[:2]
        start_ns, start = time.time_ns(), time.monotonic_ns()
        request_bytes = reply_bytes = sent = 0
        outcome = "ok"
        try:
            # The timeout is pushed back on every step: a large reply over a congested
            # link may take minutes, a client that stops reading for idle_timeout_s not.
            async with asyncio.timeout(None) as idle:

                def progressed() -> None:
                    idle.reschedule(loop.time() + self.params.idle_timeout_s)

                progressed()
                request_bytes, reply_bytes = decode_header(await reader.readexactly(HEADER.size))
                await reader.readexactly(request_bytes - HEADER.size)
                while sent < reply_bytes:
                    chunk = min(len(_CHUNK), reply_bytes - sent)
                    writer.write(_CHUNK[:chunk])
                    await writer.drain()
                    sent += chunk
                    progressed()
                writer.write_eof()
                await reader.read()
        except asyncio.IncompleteReadError:
            outcome = "short"
        except ProtocolError:
            outcome = "bad_request"
        except (ConnectionResetError, BrokenPipeError):
            outcome = "reset"
        except TimeoutError:
            outcome = "timeout"
        except OSError:
            # E.g. ENOTCONN on shutdown() after the client reset the connection.
            outcome = "error"
        except asyncio.CancelledError:
            outcome = "cancelled"
            raise
        finally:
            info = None
            with contextlib.suppress(OSError):
                info = tcp_info(sock)
            writer.close()
            self._outcomes[outcome] += 1
            self._sent_bytes += sent
            if self._records is not None:
                self._records.add(
                    {
                        "start_ns": start_ns,
                        "duration_us": (time.monotonic_ns() - start) // 1000,
                        "server_host": self.params.host_name,
                        "client_address": client_address,
                        "client_port": client_port,
                        "request_bytes": request_bytes,
                        "reply_bytes": reply_bytes,
                        "sent_bytes": sent,
                        "outcome": outcome,
                        "tcpi_total_retrans": None if info is None else info.total_retrans,
                        "tcpi_rtt_us": None if info is None else info.rtt_us,
                    }
                )


async def serve_until_signal(server: WebServer, listen: Endpoint) -> dict[str, Any]:
    await server.start(listen)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    return await server.stop()


def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(
        prog="python -m p4aqm.traffic.web.server", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--listen", required=True, help="ADDR:PORT")
    parser.add_argument("--records", type=Path, help=".parquet or .csv, one row per connection")
    parser.add_argument("--host-name", help="recorded as server_host")
    for name in ("idle_timeout_s", "flush_interval_s"):
        default = ServerParams.model_fields[name].default
        parser.add_argument(flag_of(name), type=float, help=f"default {default}")
    args = parser.parse_args(argv)
    params = model_from_args(ServerParams, args)
    listen = parse_endpoint(args.listen, "--listen", listen=True)
    if args.records is not None:
        check_records_flag(args.records)
    raise_open_files_limit()
    summary = asyncio.run(serve_until_signal(WebServer(params, args.records), listen))
    print(json.dumps(summary), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
