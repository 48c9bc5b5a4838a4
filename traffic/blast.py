"""An unresponsive UDP blast, as the 10 Mbit/s blast of 1 KB packets in Parris et al.

    python -m traffic.blast --dest ADDR:PORT --epoch-ns N --start-s 20 --stop-s 110
        [--rate-bps 10e6] [--payload-bytes 1000] [--dscp 0] [--summary FILE]

The CBR sender (traffic.cbr) with other defaults: 10 Mbit/s of 1000-byte payloads,
DSCP 0, since a blast is the unmarked non-TCP traffic a classifier such as CBT must
contain. start_s and stop_s count from a CLOCK_REALTIME epoch (ns) that every generator
of a run is given, so the blast lands at the same moment of every run. The summary gives
the first and last send times (CLOCK_REALTIME ns) to check that against; a receiver
(`python -m traffic.cbr recv`) can record what arrives.
"""

import sys
from collections.abc import Sequence
from dataclasses import asdict

from pydantic import Field, model_validator

from traffic.cbr import StreamParams, add_stream_flags, send_stream, write_summary
from traffic.cli import ArgumentParser, model_from_args, run, stop_on_signals
from traffic.endpoints import parse_endpoint


class BlastParams(StreamParams):
    rate_bps: float = Field(10e6, gt=0)
    dscp: int = Field(0, ge=0, le=63)
    stop_s: float = Field(gt=0)

    @model_validator(mode="after")
    def _stops_after_start(self) -> "BlastParams":
        if self.stop_s <= self.start_s:
            raise ValueError(f"--stop-s {self.stop_s} is not after --start-s {self.start_s}")
        return self


def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(prog="python -m traffic.blast", description=__doc__.split("\n")[0])
    add_stream_flags(parser, BlastParams)
    parser.add_argument("--stop-s", type=float, required=True)
    args = parser.parse_args(argv)
    params = model_from_args(BlastParams, args)
    dest = parse_endpoint(args.dest, "--dest")
    summary = send_stream(params, params.stop_s, dest, stop_on_signals())
    write_summary(asdict(summary), args.summary)
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
