"""`p4aqm topo dumbbell`: bring the dumbbell up, print its hosts and RTT groups, then wait
for Ctrl-C (or run Mininet's CLI with --cli) and tear it down."""

import argparse
import contextlib
import signal
import sys
import threading
from pathlib import Path

from p4aqm.topology.dumbbell import Dumbbell, DumbbellSpec
from p4aqm.topology.netem import NetemMissing
from p4aqm.topology.spec_file import SpecFileError, read_mapping, spec_from_mapping


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="p4aqm topo", description=__doc__)
    p.add_argument("topology", choices=["dumbbell"])
    p.add_argument("--config", type=Path, help="topology YAML (DumbbellSpec fields)")
    p.add_argument(
        "--aqm",
        metavar="DISCIPLINE",
        help="AQM on both bottleneck directions; its parameters from the config's"
        " left_to_right_aqm / right_to_left_aqm (the discipline is replaced)",
    )
    p.add_argument("--switch", choices=["p4aqm", "bmv2"], help="default: p4aqm")
    p.add_argument("--uniform-rtts", action="store_true", help="RTTs drawn uniform 7-137 ms")
    p.add_argument("--seed", type=int, help="seed of the uniform draw (default 1)")
    p.add_argument("--run-dir", type=Path, help="where configs, logs and the manifest go")
    p.add_argument("--cli", action="store_true", help="drop into Mininet's CLI")
    return p


def build_spec(args: argparse.Namespace) -> DumbbellSpec:
    data = read_mapping(args.config) if args.config is not None else {}
    where = str(args.config or "command line")
    if args.switch:
        data["switch"] = args.switch
    if args.run_dir:
        data["run_dir"] = args.run_dir
    if args.uniform_rtts or args.seed is not None:
        layout = data.get("delay_layout") or {}
        data["delay_layout"] = {**layout, "kind": "uniform"}
        if args.seed is not None:
            data["delay_layout"]["seed"] = args.seed
    if args.aqm:
        for key in ("left_to_right_aqm", "right_to_left_aqm"):
            data[key] = {**(data.get(key) or {}), "discipline": args.aqm}
    return spec_from_mapping(data, where)


def describe(net: Dumbbell) -> str:
    lines = [f"dumbbell up ({net.spec.switch}), run directory {net.run_dir}"]
    lines.append(f"  {'host':<5} {'address':<12} {'one-way':>9}  congestion control")
    for name, host in net.manifest["hosts"].items():
        delay_ms = host["one_way_delay_us"] / 1000
        lines.append(
            f"  {name:<5} {host['ip']:<12} {delay_ms:>6.1f} ms  {host['congestion_control']}"
        )
    rtts = sorted({p["rtt_target_us"] / 1000 for p in net.manifest["pairs"]})
    lines.append(f"  RTT groups (ms): {', '.join(f'{r:g}' for r in rtts)}")
    lines.append(f"  manifest: {net.run_dir / 'manifest.json'}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    try:
        spec = build_spec(args)
        with Dumbbell(spec) as net:
            print(describe(net), flush=True)
            if args.cli:
                from mininet.cli import CLI

                CLI(net.net)
            else:
                print("Ctrl-C tears it down.", flush=True)
                stop = threading.Event()
                signal.signal(signal.SIGTERM, lambda *_: stop.set())
                with contextlib.suppress(KeyboardInterrupt):
                    stop.wait()
    except (SpecFileError, NetemMissing, FileNotFoundError, ValueError, RuntimeError) as exc:
        print(f"p4aqm topo: error: {exc}", file=sys.stderr)
        return 2
    return 0
