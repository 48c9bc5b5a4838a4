"""Many emulated web users in one process, on asyncio; one record per request.

    python -m p4aqm.traffic.web.client --users N --servers [NAME=]ADDR:PORT,... --duration-s S
        --records FILE --host-name NAME --seed K [--max-parallel 4] [--think-time-cap-s 600]

A record per request: start_ns (CLOCK_REALTIME, just before connect()), response_time_us
(monotonic, from just before connect() to the last byte of the reply; for a failed
request, to the failure), the bytes asked and received, who talked to whom, the outcome
and the client socket's TCP_INFO at the end of the connection. Outcomes: ok, short (the
server closed before the whole reply), refused, reset, timeout (request_timeout_s), error
(any other socket error, e.g. no route) and cancelled (still running when the run ended).

The client's TCP_INFO is the client's side of the connection: its smoothed RTT and the
retransmissions of what the client sent (SYN, request). The reply's retransmissions are
counted by the server, whose records (traffic.web.server --records) join these on
(client_address, client_port), and on the server's accept time falling within the
request (the kernel may give a closed connection's port to a later one).

start_late_ms is how much later than scheduled a page's main object started (its
schedule: the end of the previous page plus the think time). A generator that cannot keep
up, because the event loop or the CPU is saturated, shows it there; requests later than
late_threshold_ms are counted in the summary. Embedded objects start as soon as one of the
page's connections is free and have no schedule of their own (NaN).
"""

import asyncio
import contextlib
import json
import math
import signal
import socket
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

import numpy as np
import pyarrow as pa
from pydantic import Field

from p4aqm.traffic.cli import (
    ArgumentParser,
    check_records_flag,
    flag_of,
    model_from_args,
    raise_open_files_limit,
    run,
)
from p4aqm.traffic.endpoints import Endpoint, parse_endpoints
from p4aqm.traffic.mah import ThinkTimePolicy, load_mah
from p4aqm.traffic.records import RecordWriter, flush_periodically
from p4aqm.traffic.tcp_info import tcp_info
from p4aqm.traffic.web.browsing import Browser, StartPolicy, WebObject, WebParams
from p4aqm.traffic.web.protocol import encode_request

SCHEMA = pa.schema(
    [
        ("start_ns", pa.int64()),
        ("response_time_us", pa.int64()),
        ("user", pa.int32()),
        ("page", pa.int32()),
        ("object", pa.int32()),
        ("request_bytes", pa.int64()),
        ("reply_bytes", pa.int64()),
        ("received_bytes", pa.int64()),
        ("client_host", pa.string()),
        ("client_address", pa.string()),
        ("client_port", pa.int32()),
        ("server_host", pa.string()),
        ("server_address", pa.string()),
        ("outcome", pa.string()),
        ("start_late_ms", pa.float64()),
        ("tcpi_total_retrans", pa.int64()),
        ("tcpi_rtt_us", pa.int64()),
    ]
)
# Replies are counted, not kept: every connection receives into this one buffer, which
# saves a buffer per open connection (thousands of users) and nothing reads it.
_DISCARD = bytearray(1 << 16)


class ClientParams(WebParams):
    users: int = Field(gt=0)
    duration_s: float = Field(gt=0)
    host_name: str = Field(min_length=1)
    seed: int = Field(ge=0)
    flush_interval_s: float = Field(5.0, gt=0)


@dataclass
class _Run:
    params: ClientParams
    records: RecordWriter
    start_ns: int = field(default_factory=time.time_ns)
    outcomes: Counter[str] = field(default_factory=Counter)
    received_bytes: int = 0
    late_starts: int = 0
    max_start_late_ms: float = 0.0

    def record(self, row: dict[str, Any]) -> None:
        self.records.add(row)
        self.outcomes[row["outcome"]] += 1
        self.received_bytes += row["received_bytes"]
        late_ms = row["start_late_ms"]
        if not math.isnan(late_ms):
            self.max_start_late_ms = max(self.max_start_late_ms, late_ms)
            if late_ms > self.params.late_threshold_ms:
                self.late_starts += 1

    def summary(self) -> dict[str, Any]:
        elapsed_s = (time.time_ns() - self.start_ns) / 1e9
        return {
            "host_name": self.params.host_name,
            "users": self.params.users,
            "elapsed_s": round(elapsed_s, 3),
            "requests": sum(self.outcomes.values()),
            "outcomes": dict(self.outcomes),
            "received_bps": round(8 * self.received_bytes / elapsed_s),
            "late_starts": self.late_starts,
            "late_threshold_ms": self.params.late_threshold_ms,
            "max_start_late_ms": round(self.max_start_late_ms, 3),
        }


async def fetch(
    server: Endpoint,
    obj: WebObject,
    timeout_s: float,
    record: Callable[[dict[str, Any]], None],
) -> None:
    """One request/response on its own connection; record() gets its fields, whatever happens.

    record() is called even when the run's end cancels the request, before the
    cancellation goes on, so that an interrupted request is in the records too.
    """
    loop = asyncio.get_running_loop()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setblocking(False)
    request = encode_request(obj.request_bytes, obj.reply_bytes)
    received = 0
    connected = False
    end: int | None = None
    start_ns = time.time_ns()
    start = time.monotonic_ns()
    try:
        async with asyncio.timeout(timeout_s):
            await loop.sock_connect(sock, (server.address, server.port))
            connected = True
            await loop.sock_sendall(sock, request)
            while chunk := await loop.sock_recv_into(sock, _DISCARD):
                received += chunk
                if received >= obj.reply_bytes:
                    end = time.monotonic_ns()  # the reply's last byte; EOF follows
        outcome = "ok" if received == obj.reply_bytes else "short"
    except ConnectionRefusedError:
        outcome = "refused"
    except (ConnectionResetError, BrokenPipeError):
        outcome = "reset"
    except TimeoutError:
        outcome = "timeout"
    except asyncio.CancelledError:
        outcome = "cancelled"
        raise
    except OSError:
        outcome = "error"
    finally:
        if end is None or outcome != "ok":
            end = time.monotonic_ns()
        record(
            {
                "start_ns": start_ns,
                "response_time_us": (end - start) // 1000,
                "request_bytes": obj.request_bytes,
                "reply_bytes": obj.reply_bytes,
                "received_bytes": received,
                "server_host": server.name,
                "server_address": str(server),
                "outcome": outcome,
                **_socket_fields(sock, connected),
            }
        )
        sock.close()


def _socket_fields(sock: socket.socket, connected: bool) -> dict[str, Any]:
    if not connected:
        return {}
    address, port = sock.getsockname()
    info = tcp_info(sock)
    return {
        "client_address": address,
        "client_port": port,
        "tcpi_total_retrans": info.total_retrans,
        "tcpi_rtt_us": info.rtt_us,
    }


async def browse(user: int, browser: Browser[Endpoint], params: ClientParams, run_: _Run) -> None:
    """One user's loop of pages and think times, until cancelled."""
    loop = asyncio.get_running_loop()
    scheduled = loop.time() + browser.start_delay_s(params)
    page = 0
    while True:
        await asyncio.sleep(scheduled - loop.time())
        late_ms = (loop.time() - scheduled) * 1e3
        tag = {"user": user, "page": page, "client_host": params.host_name}
        await fetch_page(browser.server(), browser.page(), late_ms, tag, params, run_)
        page += 1
        scheduled = loop.time() + browser.think_time_s()


async def fetch_page(
    server: Endpoint,
    objects: list[WebObject],
    late_ms: float,
    tag: dict[str, Any],
    params: ClientParams,
    run_: _Run,
) -> None:
    """The main object, then the embedded ones over up to max_parallel connections."""

    def recorder(index: int, late_ms: float) -> Callable[[dict[str, Any]], None]:
        return lambda row: run_.record({**row, **tag, "object": index, "start_late_ms": late_ms})

    await fetch(server, objects[0], params.request_timeout_s, recorder(0, late_ms))
    embedded = iter(enumerate(objects[1:], start=1))

    async def connection() -> None:
        # The connections share one iterator: each takes the next object as soon as it is
        # free, as a browser's connection pool does.
        for index, obj in embedded:
            await fetch(server, obj, params.request_timeout_s, recorder(index, math.nan))

    await asyncio.gather(*(connection() for _ in range(min(params.max_parallel, len(objects) - 1))))


async def run_client(
    params: ClientParams, servers: Sequence[Endpoint], records_path: Path
) -> dict[str, Any]:
    """Run the users for duration_s or until SIGTERM/SIGINT; write the records; the summary."""
    model = load_mah(params)
    seeds = np.random.SeedSequence(params.seed).spawn(params.users)
    metadata = {
        "kind": "web_client",
        "params": params.model_dump(),
        "servers": [{"name": s.name, "address": str(s)} for s in servers],
        "start_ns": time.time_ns(),
    }
    run_ = _Run(params, RecordWriter(records_path, SCHEMA, metadata, params.flush_interval_s))
    users = [
        asyncio.create_task(
            browse(user, Browser(model, servers, np.random.default_rng(seed)), params, run_)
        )
        for user, seed in enumerate(seeds)
    ]
    flusher = asyncio.create_task(flush_periodically(run_.records))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), params.duration_s)
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.remove_signal_handler(signum)
    for task in [*users, flusher]:
        task.cancel()
    results = await asyncio.gather(*users, flusher, return_exceptions=True)
    summary = run_.summary()
    run_.records.close(summary)
    # A user that failed otherwise than by the cancel is a bug: the records are kept,
    # the run still fails.
    for result in results:
        if isinstance(result, BaseException) and not isinstance(result, asyncio.CancelledError):
            raise result
    return summary


def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(
        prog="python -m p4aqm.traffic.web.client", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--users", type=int, required=True)
    parser.add_argument("--servers", required=True, help="[NAME=]ADDR:PORT,...")
    parser.add_argument("--duration-s", type=float, required=True)
    parser.add_argument("--records", type=Path, required=True, help=".parquet or .csv")
    parser.add_argument("--host-name", required=True, help="recorded as client_host")
    parser.add_argument("--seed", type=int, required=True)
    for name, kind in (
        ("max_parallel", int),
        ("think_time_cap_s", float),
        ("ramp_s", float),
        ("request_timeout_s", float),
        ("late_threshold_ms", float),
        ("flush_interval_s", float),
    ):
        default = ClientParams.model_fields[name].default
        parser.add_argument(flag_of(name), type=kind, help=f"default {default}")
    for name, kind in (("think_time_policy", ThinkTimePolicy), ("start_policy", StartPolicy)):
        default = ClientParams.model_fields[name].default
        parser.add_argument(flag_of(name), choices=get_args(kind), help=f"default {default}")
    args = parser.parse_args(argv)
    params = model_from_args(ClientParams, args)
    servers = parse_endpoints(args.servers, "--servers")
    check_records_flag(args.records)
    raise_open_files_limit()
    summary = asyncio.run(run_client(params, servers, args.records))
    print(json.dumps(summary), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
