"""`p4aqm controller CONFIG.yaml`: install a pipeline and its entries on a switch."""

import argparse
import sys
from pathlib import Path

import finsy as fy
import grpc

from controller.config import ConfigError, load_config
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
    return parser


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
        written = apply_config(config, timeout_s=args.timeout)
    except (SwitchUnreachable, PipelineMismatch) as exc:
        print(f"p4aqm controller: error: {exc}", file=sys.stderr)
        return 1
    except (fy.P4ClientError, grpc.RpcError) as exc:
        print(f"p4aqm controller: error: switch {config.switch.grpc_addr}: {exc}", file=sys.stderr)
        return 1
    print(f"p4aqm controller: pipeline installed on {config.switch.grpc_addr}, {written} route(s)")
    return 0
