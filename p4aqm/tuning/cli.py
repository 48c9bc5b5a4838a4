"""`p4aqm wad RULES.yaml --cgroup GROUP`: tune every TCP connection of the processes in a
cgroup (v2) by the rule file's first matching rule, until SIGTERM or SIGINT, then print
what each rule tuned and detach. `p4aqm wad RULES.yaml --check` only reads the rules.
Bad input is one error line naming the file, line and field, and exit status 2."""

import argparse
import json
import signal
import sys
from pathlib import Path

from p4aqm.tuning.bpf import Tuner, TuningError
from p4aqm.tuning.rules import RulesError, load_rules


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="p4aqm wad", description=__doc__.split("\n\n")[0])
    p.add_argument("rules", type=Path, help="the rule file (p4aqm/tuning/rules.py)")
    p.add_argument("--cgroup", type=Path, help="the cgroup v2 group whose connections to tune")
    p.add_argument("--name", default="wad", help="names the pins under /sys/fs/bpf")
    p.add_argument("--check", action="store_true", help="read the rules and stop")
    return p


def main(argv: list[str]) -> int:
    p = parser()
    args = p.parse_args(argv)
    if not args.check and args.cgroup is None:
        p.error("give --cgroup GROUP (or --check)")
    try:
        rules = load_rules(args.rules)
        if args.check:
            print(f"{args.rules}: {len(rules.rules)} rules")
            return 0
        stop = {signal.SIGTERM, signal.SIGINT}
        signal.pthread_sigmask(signal.SIG_BLOCK, stop)
        with Tuner(rules, args.cgroup, args.name) as tuner:
            chosen = "".join(
                f"; rule {rule} uses congestion control {name}"
                for rule, name in tuner.congestion_controls().items()
            )
            print(f"tuning {args.cgroup} by {args.rules}{chosen}", flush=True)
            signal.sigwait(stop)
            print(json.dumps(tuner.counters()), flush=True)
    except (RulesError, TuningError) as exc:
        print(f"p4aqm wad: error: {exc}", file=sys.stderr)
        return 2
    return 0
