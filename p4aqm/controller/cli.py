"""`p4aqm controller CONFIG.yaml`: install a pipeline and its entries on a switch."""

import argparse
import faulthandler
import io
import signal
import sys
import threading
import time
from pathlib import Path
from types import FrameType

import finsy as fy
import grpc
from finsy.gnmiclient import GNMIClientError

from p4aqm.controller.bmv2_queues import Bmv2PortError
from p4aqm.controller.config import ConfigError, ControllerConfig, load_config
from p4aqm.controller.monitor_sampler import MonitorSampler
from p4aqm.controller.pipeline import PipelineMismatch, SwitchUnreachable
from p4aqm.controller.recording import MonitorRecording
from p4aqm.controller.session import apply_config

CHECK_S = 0.2  # how often the waiting command looks whether the recording still runs


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="p4aqm controller",
        description="Push a P4 pipeline to a P4Runtime switch and install a YAML config's routes.",
    )
    parser.add_argument("config", type=Path, help="controller YAML config")
    parser.add_argument("--grpc-addr", help="override switch.grpc_addr (HOST:PORT)")
    parser.add_argument("--device-id", type=int, help="override switch.device_id")
    parser.add_argument(
        "--timeout", type=float, default=10.0, help="seconds to wait for the switch (default 10)"
    )
    parser.add_argument(
        "--sample",
        type=Path,
        metavar="FILE",
        help="then sample the AQM ports' state into FILE (.csv or .parquet) until Ctrl-C",
    )
    parser.add_argument(
        "--period-ms", type=float, default=100.0, help="sampling period in ms (default 100)"
    )
    parser.add_argument("--duration-s", type=float, help="stop sampling after this many seconds")
    return parser


def _stacks_on_sigusr1() -> None:
    """A long sampling run that stops answering can be asked where it is (kill -USR1)."""
    try:
        faulthandler.register(signal.SIGUSR1, all_threads=True)
    except io.UnsupportedOperation:
        return  # stderr is no file (run in-process under a capture): nowhere to dump


def _record_until_stopped(recording: MonitorRecording, duration_s: float | None) -> int:
    """Record until duration_s, SIGINT or SIGTERM, or the recording's own end; return
    the rows written (the file is complete once this returns)."""
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    deadline = None if duration_s is None else time.monotonic() + duration_s
    try:
        while recording.running and not stop.is_set():
            left_s = None if deadline is None else deadline - time.monotonic()
            if left_s is not None and left_s <= 0:
                break
            stop.wait(CHECK_S if left_s is None else min(CHECK_S, left_s))
    finally:
        rows = recording.stop()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return rows


def _sample(config: ControllerConfig, args: argparse.Namespace) -> int:
    _stacks_on_sigusr1()
    ports = {p: c.aqm.probes() for p, c in config.ports.items() if c.aqm is not None}
    if not ports:
        print("p4aqm controller: error: --sample: no port has an aqm", file=sys.stderr)
        return 1
    if args.period_ms <= 0:
        print("p4aqm controller: error: --period-ms must be positive", file=sys.stderr)
        return 2
    metadata = {
        "switch": config.switch.model_dump(mode="json"),
        "pipeline": config.pipeline.model_dump(mode="json"),
        "ports": {port: c.model_dump(mode="json") for port, c in config.ports.items()},
    }
    try:
        recording = MonitorRecording.start(
            config.switch, config.pipeline, ports, args.period_ms / 1000, args.sample, metadata
        )
        rows = _record_until_stopped(recording, args.duration_s)
    except (ValueError, OSError) as exc:
        print(f"p4aqm controller: error: --sample: {exc}", file=sys.stderr)
        return 1
    except grpc.RpcError as exc:
        print(
            f"p4aqm controller: error: sampling {config.switch.grpc_addr}: {exc.details()}",
            file=sys.stderr,
        )
        return 1
    if isinstance(recording.sampler, MonitorSampler):
        print(
            f"p4aqm controller: the switch's monitor missed {recording.missed} period(s)"
            f" and dropped {recording.overruns} record(s) for a full buffer"
        )
    print(f"p4aqm controller: {rows} sample row(s) written to {args.sample}")
    return 0


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"p4aqm controller: error: {exc}", file=sys.stderr)
        return 1
    overrides = {"grpc_addr": args.grpc_addr, "device_id": args.device_id}
    switch = config.switch.model_copy(update={k: v for k, v in overrides.items() if v is not None})
    config = config.model_copy(update={"switch": switch})
    try:
        inserted, modified, deleted = apply_config(config, timeout_s=args.timeout)
    except (SwitchUnreachable, PipelineMismatch, Bmv2PortError) as exc:
        print(f"p4aqm controller: error: {exc}", file=sys.stderr)
        return 1
    except GNMIClientError as exc:
        # The status by name (UNIMPLEMENTED), not finsy's number.
        print(
            f"p4aqm controller: error: switch {config.switch.grpc_addr}: gNMI"
            f" {exc.code.name}: {exc.message}",
            file=sys.stderr,
        )
        return 1
    except (fy.P4ClientError, grpc.RpcError) as exc:
        print(f"p4aqm controller: error: switch {config.switch.grpc_addr}: {exc}", file=sys.stderr)
        return 1
    print(
        f"p4aqm controller: {config.switch.grpc_addr} in sync: {inserted} entries inserted,"
        f" {modified} modified, {deleted} deleted"
    )
    return _sample(config, args) if args.sample else 0
