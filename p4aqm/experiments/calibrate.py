"""`p4aqm calibrate`: offered web load against the number of users, on the dumbbell with
an unconstrained (100 Mbit/s) bottleneck, as the seed studies calibrated it; the fit is
saved with the traffic and topology settings it holds for, and plotted.

    p4aqm calibrate [--users 500,1000,2000,3000] [--warmup-s 20] [--measure-s 60]
                    [--out calibration/] [--fit origin|affine] [--uniform-rtts]
"""

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from p4aqm.experiments.calibration_figure import plot_calibration
from p4aqm.experiments.web_load import run_web_load
from p4aqm.topology import Dumbbell, DumbbellSpec
from p4aqm.traffic.calibration import (
    CalibrationPoint,
    fit_calibration,
    save_calibration,
    users_for_load,
)
from p4aqm.traffic.web.browsing import WebParams

TARGET_RATE_BPS = 10_000_000


def _users(text: str) -> list[int]:
    try:
        users = [int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a comma-separated list of integers"
        ) from None
    if not users or min(users) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: every user count must be at least 1")
    return users


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not positive")
    return value


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="p4aqm calibrate", description=__doc__.split("\n\n")[0])
    p.add_argument("--users", type=_users, default=[500, 1000, 2000, 3000])
    p.add_argument("--warmup-s", type=_positive, default=20.0)
    p.add_argument("--measure-s", type=_positive, default=60.0)
    p.add_argument("--bottleneck-rate-bps", type=int, default=100_000_000)
    p.add_argument("--out", type=Path, default=Path("calibration"))
    p.add_argument("--fit", choices=["origin", "affine"], default="origin")
    p.add_argument("--uniform-rtts", action="store_true", help="7-137 ms RTTs (Christiansen)")
    p.add_argument("--seed", type=int, default=1)
    return p


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    params = WebParams()
    topology = {"bottleneck_rate_bps": args.bottleneck_rate_bps, "name_prefix": "p4cal"}
    if args.uniform_rtts:
        spec = DumbbellSpec.uniform_rtts(seed=args.seed, run_dir=args.out / "topology", **topology)
    else:
        spec = DumbbellSpec(run_dir=args.out / "topology", **topology)
    points = []
    try:
        with Dumbbell(spec) as net:
            for users in args.users:
                load = run_web_load(
                    net, users, params, args.out / f"users-{users}",
                    args.warmup_s, args.measure_s, seed=args.seed,
                )  # fmt: skip
                points.append(CalibrationPoint(users=users, offered_load_bps=load.offered_load_bps))
                print(
                    f"{users:6d} users: {load.offered_load_bps / 1e6:7.3f} Mbit/s server->client,"
                    f" {load.reverse_load_bps / 1e6:6.3f} client->server"
                    f" over {load.window_s:.0f} s; late starts {load.late_starts}",
                    flush=True,
                )
            manifest = net.manifest
    except (RuntimeError, ValueError, FileNotFoundError) as exc:
        print(f"p4aqm calibrate: error: {exc}", file=sys.stderr)
        return 2
    held = {
        "spec": json.loads(json.dumps(dataclasses.asdict(spec), default=str)),
        "rtt_targets_us": [p["rtt_target_us"] for p in manifest["pairs"]],
        "warmup_s": args.warmup_s,
        "measure_s": args.measure_s,
    }
    calibration = fit_calibration(points, params, held, fit=args.fit)
    save_calibration(calibration, args.out / "calibration.yaml")
    plot_calibration(calibration, args.out / "calibration.png")
    print(
        f"fit ({args.fit}): {calibration.slope_bps_per_user:.1f} bit/s per user,"
        f" R² {calibration.r_squared}"
    )
    for fraction in (0.5, 0.9, 1.0, 1.1):
        users = users_for_load(calibration, fraction, TARGET_RATE_BPS)
        print(f"  {fraction:.0%} of 10 Mbit/s: {users} users")
    print(f"saved {args.out / 'calibration.yaml'} and {args.out / 'calibration.png'}")
    return 0
