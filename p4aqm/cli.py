"""The `p4aqm` command: one entry point that dispatches to each part of the system."""

import sys
from collections.abc import Callable
from importlib import import_module

# Subcommand -> (module, help). Modules are imported lazily so that `p4aqm compile`
# does not pay for gRPC and `p4aqm switch` does not pay for the compiler.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "compile": (
        "p4aqm.compiler.cli",
        "compile P4_16 to BMv2 JSON and P4Info (flags like p4c-bm2-ss)",
    ),
    "switch": ("p4aqm.switch.cli", "run the software switch (flags like simple_switch_grpc)"),
    "stf": ("p4aqm.stf.cli", "run an STF packet test (p4c's format) on the switch"),
    "controller": (
        "p4aqm.controller.cli",
        "push a pipeline and install entries from a YAML config",
    ),
    "topo": ("p4aqm.topology.cli", "bring up a Mininet topology (dumbbell) on P4 switches"),
    "run": (
        "p4aqm.experiments.runner",
        "run an experiment file's sweep; resumable; local or Slurm",
    ),
    "status": ("p4aqm.experiments.status", "each point of a results folder: done, running, failed"),
    "report": ("p4aqm.report.cli", "an HTML report with figures of a results folder"),
    "calibrate": ("p4aqm.experiments.calibrate", "measure web load against users; fit and plot it"),
    "wad": ("p4aqm.tuning.cli", "tune TCP per connection by rules, after Net100's WAD (eBPF)"),
    "clean": ("p4aqm.topology.clean", "remove the namespaces, veths and processes p4aqm started"),
}


def _usage() -> str:
    lines = ["usage: p4aqm <command> [options]", "", "commands:"]
    lines += [f"  {name:<12} {help_text}" for name, (_, help_text) in SUBCOMMANDS.items()]
    lines += ["", "Run 'p4aqm <command> --help' for a command's options."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help"):
        print(_usage())
        return 0 if args else 2
    command, rest = args[0], args[1:]
    if command not in SUBCOMMANDS:
        print(f"p4aqm: error: unknown command '{command}'\n\n{_usage()}", file=sys.stderr)
        return 2
    module_name, _ = SUBCOMMANDS[command]
    run: Callable[[list[str]], int] = import_module(module_name).main
    return run(rest)


if __name__ == "__main__":
    sys.exit(main())
