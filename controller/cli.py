"""`p4aqm controller CONFIG.yaml`: install a pipeline and its entries on a switch."""

import argparse
import faulthandler
import io
import signal
import sys
from pathlib import Path

import finsy as fy
import grpc
from finsy.gnmiclient import GNMIClientError

from controller.bmv2_queues import Bmv2PortError
from controller.config import ConfigError, ControllerConfig, load_config
from controller.monitor_sampler import MonitorSampler, record, serves_monitor
from controller.sampler import Sampler, sample
from controller.session import PipelineMismatch, SwitchUnreachable, apply_config


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
    period_s = args.period_ms / 1000
    try:
        if serves_monitor(config.switch.grpc_addr):
            monitor = MonitorSampler(config.switch.grpc_addr, ports, period_s)
            rows = record(monitor, args.sample, args.duration_s, metadata)
            print(
                f"p4aqm controller: the switch's monitor missed {monitor.missed} period(s)"
                f" and dropped {monitor.overruns} record(s) for a full buffer"
            )
        else:
            sampler = Sampler(
                config.switch.grpc_addr,
                config.switch.device_id,
                config.pipeline.p4info,
                ports,
                period_s=period_s,
                election_id=config.switch.election_id,
            )
            rows = sample(sampler, args.sample, period_s, args.duration_s, metadata)
    except (ValueError, OSError) as exc:
        print(f"p4aqm controller: error: --sample: {exc}", file=sys.stderr)
        return 1
    except grpc.RpcError as exc:
        print(
            f"p4aqm controller: error: sampling {config.switch.grpc_addr}: {exc.details()}",
            file=sys.stderr,
        )
        return 1
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
