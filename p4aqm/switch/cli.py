"""`p4aqm switch`: the software switch, with the command-line flags of simple_switch_grpc.

    p4aqm switch [-i PORT@IFACE ...] [--device-id N] [--no-p4 | PROG.json]
                 [-- --grpc-server-addr HOST:PORT --cpu-port N --priority-queues N]

As with simple_switch_grpc, the target options (--grpc-server-addr, --cpu-port,
--priority-queues) may follow a `--` separator; they are also accepted before it.
The gRPC port serves P4Runtime and, for queue control, gNMI (p4aqm/switch/README.md).
"""

import argparse
import asyncio
import logging
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from p4aqm.switch.gnmi.service import GnmiService
from p4aqm.switch.runtime.dataplane import DataplaneApi
from p4aqm.switch.runtime.server import P4RuntimeService, start_server, stop_server

PROG = "p4aqm switch"
MAX_PORT = 511  # v1model ports are bit<9>
MAX_PRIORITY_QUEUES = 8  # standard_metadata.priority is bit<3>
LOG = logging.getLogger("p4aqm.switch")


class _UsageError(Exception):
    """A bad command line; main() prints it and returns 2."""


class _Exit(Exception):  # noqa: N818 - mirrors argparse's exit(), not an error
    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class _Parser(argparse.ArgumentParser):
    """argparse, but returning from main() instead of calling sys.exit()."""

    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            print(message, file=sys.stderr, end="")
        raise _Exit(status)


@dataclass(frozen=True)
class Options:
    interfaces: list[tuple[int, str]]
    device_id: int
    host: str
    port: int
    cpu_port: int | None
    priority_queues: int
    config: Path | None
    log_console: bool
    trace: bool
    seed: int
    realtime_priority: int | None = None


def _add_target_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--grpc-server-addr",
        metavar="HOST:PORT",
        help="where P4Runtime and gNMI listen (default 127.0.0.1:9559; port 0 picks one)",
    )
    parser.add_argument("--cpu-port", metavar="N", type=int, help="port for packet-in/out")
    parser.add_argument(
        "--priority-queues",
        metavar="N",
        type=int,
        help="queues per egress port, picked by standard_metadata.priority (default 1)",
    )


def _parsers() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    parser = _Parser(
        prog=PROG,
        description="Run the p4aqm software switch and its P4Runtime server.",
        epilog="Target options may also follow a '--' separator, as with simple_switch_grpc.",
    )
    parser.add_argument(
        "config", nargs="?", type=Path, metavar="PROG.json", help="BMv2 JSON to load at start"
    )
    parser.add_argument(
        "-i",
        "--interface",
        action="append",
        default=[],
        metavar="PORT@IFACE",
        help="attach Linux interface IFACE as switch port PORT (repeatable)",
    )
    parser.add_argument("--device-id", type=int, default=0, metavar="N", help="P4Runtime device id")
    parser.add_argument(
        "--no-p4",
        action="store_true",
        help="start without a program and wait for a pipeline push (also the default with no JSON)",
    )
    parser.add_argument(
        "--log-console",
        action="store_true",
        help="log control-plane events and a per-packet trace to the console",
    )
    parser.add_argument("--trace", action="store_true", help="per-packet trace to stderr")
    parser.add_argument("--seed", type=int, default=0, metavar="N", help="seed of random()")
    parser.add_argument(
        "--realtime-priority",
        type=int,
        metavar="N",
        help="run the event loop under SCHED_FIFO at priority N (1-99), so that departures"
        " are not late behind other processes (default: normal scheduling)",
    )
    parser.add_argument(
        "--thrift-port",
        type=int,
        metavar="N",
        help="accepted for simple_switch_grpc command lines; no Thrift server is started",
    )
    _add_target_options(parser)
    target = _Parser(prog=f"{PROG} ... --", add_help=False)
    _add_target_options(target)
    return parser, target


def parse_args(argv: list[str]) -> Options:
    """The options of a command line; raises _UsageError or _Exit (for --help)."""
    parser, target_parser = _parsers()
    if "--" in argv:
        split = argv.index("--")
        args = parser.parse_args(argv[:split])
        target = target_parser.parse_args(argv[split + 1 :])
    else:
        args = parser.parse_args(argv)
        target = argparse.Namespace(grpc_server_addr=None, cpu_port=None, priority_queues=None)
    if args.thrift_port is not None:
        print(f"{PROG}: warning: --thrift-port ignored: no Thrift server", file=sys.stderr)
    address = target.grpc_server_addr or args.grpc_server_addr or "127.0.0.1:9559"
    cpu_port = target.cpu_port if target.cpu_port is not None else args.cpu_port
    given = (target.priority_queues, args.priority_queues)
    queues = next((q for q in given if q is not None), 1)
    if not 1 <= queues <= MAX_PRIORITY_QUEUES:
        raise _UsageError(f"--priority-queues {queues}: expected 1..{MAX_PRIORITY_QUEUES}")
    if args.config is not None and args.no_p4:
        raise _UsageError("give either a BMv2 JSON file or --no-p4, not both")
    if cpu_port is not None and not 0 <= cpu_port <= MAX_PORT:
        raise _UsageError(f"--cpu-port {cpu_port}: expected a port number 0..{MAX_PORT}")
    if args.device_id < 0:
        raise _UsageError(f"--device-id {args.device_id}: expected a non-negative number")
    if args.realtime_priority is not None and not 1 <= args.realtime_priority <= 99:
        raise _UsageError(f"--realtime-priority {args.realtime_priority}: expected 1..99")
    host, port = _address(address)
    return Options(
        interfaces=_interfaces(args.interface, cpu_port),
        device_id=args.device_id,
        host=host,
        port=port,
        cpu_port=cpu_port,
        priority_queues=queues,
        config=args.config,
        log_console=args.log_console,
        trace=args.trace,
        seed=args.seed,
        realtime_priority=args.realtime_priority,
    )


def _interfaces(specs: list[str], cpu_port: int | None) -> list[tuple[int, str]]:
    result: list[tuple[int, str]] = []
    for spec in specs:
        port_text, at, ifname = spec.partition("@")
        if not at or not port_text.isdigit() or not ifname:
            raise _UsageError(f"--interface '{spec}': expected PORT@IFACE")
        port = int(port_text)
        if port > MAX_PORT:
            raise _UsageError(f"--interface '{spec}': port {port} is not in 0..{MAX_PORT}")
        if port == cpu_port:
            raise _UsageError(f"--interface '{spec}': port {port} is the CPU port")
        if any(p == port for p, _ in result):
            raise _UsageError(f"--interface '{spec}': port {port} is given twice")
        result.append((port, ifname))
    return result


def _address(text: str) -> tuple[str, int]:
    host, colon, port_text = text.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    if not colon or not host or not port_text.isdigit() or int(port_text) > 65535:
        raise _UsageError(f"--grpc-server-addr '{text}': expected HOST:PORT")
    return host, int(port_text)


class _SwitchError(Exception):
    """A failure to start the switch (missing interface, unusable address, bad JSON)."""


def main(argv: list[str]) -> int:
    try:
        options = parse_args(argv)
    except _UsageError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    except _Exit as exc:
        return exc.status
    logging.basicConfig(
        level=logging.INFO if options.log_console else logging.WARNING,
        format="%(asctime)s %(name)s %(levelname)s: %(message)s",
        stream=sys.stderr,
    )
    # The switch's own events (pipeline loads, queue and link changes) are few and worth
    # a timestamped line by default; the libraries stay at warnings.
    logging.getLogger("p4aqm.switch").setLevel(logging.INFO)
    try:
        return asyncio.run(_run(options))
    except _SwitchError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0


def _dataplane(options: Options) -> DataplaneApi:
    """The dataplane with its interfaces attached, or _SwitchError saying what failed."""
    try:
        from p4aqm.switch._dataplane import Dataplane
    except ImportError as exc:
        raise _SwitchError(
            f"the dataplane extension p4aqm.switch._dataplane is missing: {exc}"
        ) from None
    for port, ifname in options.interfaces:
        if not Path("/sys/class/net", ifname).exists():
            raise _SwitchError(f"--interface '{port}@{ifname}': no interface named '{ifname}'")
    try:
        dataplane = Dataplane(
            cpu_port=options.cpu_port,
            seed=options.seed,
            priority_queues=options.priority_queues,
            realtime_priority=options.realtime_priority,
        )
    except Exception as exc:  # noqa: BLE001 - any failure of the extension is fatal here
        raise _SwitchError(f"cannot create the dataplane: {exc}") from None
    for port, ifname in options.interfaces:
        try:
            dataplane.add_interface(port, ifname)
        except Exception as exc:  # noqa: BLE001
            raise _SwitchError(f"--interface '{port}@{ifname}': {exc}") from None
    dataplane.set_trace(options.trace or options.log_console)
    return dataplane


async def _run(options: Options) -> int:
    dataplane = _dataplane(options)
    service = P4RuntimeService(dataplane, options.device_id)
    if options.config is not None:
        try:
            service.load_device_config(options.config.read_bytes())
        except OSError as exc:
            raise _SwitchError(f"cannot read {options.config}: {exc.strerror}") from None
        except Exception as exc:  # noqa: BLE001 - P4RuntimeError or a dataplane error
            raise _SwitchError(f"{options.config}: {exc}") from None
    address = f"[{options.host}]" if ":" in options.host else options.host
    try:
        server, port = await start_server(
            service, f"{address}:{options.port}", gnmi_service=GnmiService(dataplane)
        )
    except OSError as exc:
        raise _SwitchError(str(exc)) from None
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        try:
            dataplane.start()
        except Exception as exc:  # noqa: BLE001
            raise _SwitchError(f"cannot start the dataplane: {exc}") from None
        ports = " ".join(f"{p}@{name}" for p, name in options.interfaces) or "none"
        print(
            f"{PROG}: P4Runtime server listening on {address}:{port}, "
            f"device {options.device_id}, ports {ports}",
            flush=True,
        )
        await stop.wait()
        LOG.info("stopping")
    finally:
        await stop_server(server, service, grace=1)
        dataplane.stop()
    return 0
