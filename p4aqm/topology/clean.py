"""`p4aqm clean`: remove every namespace, veth, cgroup, process, tuning pin and tuning
congestion control that p4aqm's topologies, points' sandboxes, test networks and tuning
daemons started, including those of runs killed with SIGKILL; nothing else."""

import argparse
import sys

from p4aqm.topology.netlab import NAMESPACE_PREFIX, remove_stale_namespaces
from p4aqm.topology.registry import REGISTRY_DIR, clean, records
from p4aqm.topology.sandbox import SANDBOX_PREFIX, remove_stale_sandboxes
from p4aqm.tuning import aimd
from p4aqm.tuning.bpf import remove_stale_pins


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="p4aqm clean", description=__doc__)
    parser.parse_args(argv)
    try:
        found = records()
    except ValueError as exc:
        print(f"p4aqm clean: error: {exc}", file=sys.stderr)
        return 2
    for record in found:
        removed = clean(record)
        print(f"topology {record.name} ({record.run_dir}): removed {len(removed)}")
        for line in removed:
            print(f"  {line}")
    for line in [*remove_stale_sandboxes(), *remove_stale_pins(), *aimd.remove_stale()]:
        print(f"  {line}")
    remove_stale_namespaces()
    print(
        f"p4aqm clean: {len(found)} topologies from {REGISTRY_DIR}; point sandboxes"
        f" {SANDBOX_PREFIX}* and test namespaces {NAMESPACE_PREFIX}* of finished runs removed"
    )
    return 0
