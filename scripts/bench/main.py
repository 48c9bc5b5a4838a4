"""`make bench`: print every benchmark figure, each beside a baseline measured in this run.

Benchmarks are not tests: nothing here passes or fails; the numbers are for the notes.
"""

import compile_time
import dumbbell_cpu
import experiment_throughput
import fast_point
import forwarding
import generator_cpu
import monitor_cost
import p4runtime_writes
import tracer_cost

BOUND = f"  GENERATOR-BOUND: delivered within {forwarding.GENERATOR_BOUND:.0%} of offered"


def main() -> None:
    print("== Compile time (best of 5, fresh process)")
    for name, seconds in compile_time.run():
        print(f"  {name:<28} {seconds * 1000:8.1f} ms")

    print("\n== P4Runtime table inserts (l3_forward, /32 routes)")
    for rate in p4runtime_writes.run():
        print(f"  {rate.label:<28} {rate.per_second:10,.0f} inserts/s ({rate.entries} entries)")

    duration = f"{forwarding.DURATION_S:g} s"
    print(
        f"\n== Forwarding between two veths (one switch core; median of {forwarding.REPEATS}"
        f" runs of {duration} per point)"
    )
    rates = forwarding.run()
    for rate in rates:
        print(
            f"  {rate.program:<24} {rate.frame_bytes:5d} B"
            f"  offered {rate.offered_pps / 1e3:6.1f} kpps"
            f"  delivered {rate.delivered_pps / 1e3:6.1f} kpps {rate.gbps:5.2f} Gbit/s"
            f"  switch core {rate.switch_core_busy:4.0%} busy"
            f" -> {rate.per_core_pps / 1e3:6.1f} kpps per busy core"
            + (BOUND if rate.generator_bound else "")
        )
    for size in (64, 1500):
        wire = next(r for r in rates if r.frame_bytes == size and r.program == forwarding.WIRE)
        l3 = next(r for r in rates if r.frame_bytes == size and r.program == forwarding.L3_FORWARD)
        delivered = l3.delivered_pps / wire.delivered_pps
        per_core = l3.per_core_pps / wire.per_core_pps
        # A generator-bound rate is the offer's, so this ratio would not be the programs'.
        either = wire.generator_bound or l3.generator_bound
        bound = " (generator-bound: compare per core)" if either else ""
        print(
            f"  l3_forward / wire at {size} B: delivered {delivered:.0%}{bound},"
            f" per core {per_core:.0%}"
        )

    for size in (64, 1500):
        l3 = next(r for r in rates if r.frame_bytes == size and r.program == forwarding.L3_FORWARD)
        shaped = next(r for r in rates if r.frame_bytes == size and r.program == forwarding.SHAPED)
        print(
            f"  shaped / l3_forward at {size} B, per busy core: "
            f"{shaped.per_core_pps / l3.per_core_pps:.0%} (the queue and delay line's cost)"
        )

    l3_1500 = next(r for r in rates if r.frame_bytes == 1500 and r.program == forwarding.L3_FORWARD)
    print("\n== The dumbbell: bring-up, and router CPU with 9 TCP flows each way at 10 Mbit/s")
    for line in dumbbell_cpu.report(1 / l3_1500.per_core_pps):
        print(line)

    print("\n== Web generators at 110 % of 10 Mbit/s, with both routers and the monitor")
    for line in generator_cpu.report():
        print(line)

    print(f"\n== {monitor_cost.title()}")
    for line in monitor_cost.report(monitor_cost.run()):
        print(line)

    print(
        "\n== Experiment throughput: the demo's points one at a time (--jobs 1) and at once"
        " (--jobs auto), with their fidelity and response times"
    )
    for line in experiment_throughput.report():
        print(line)

    print(f"\n== TCP tracer: {tracer_cost.FLOWS} connections every {tracer_cost.PERIOD_MS} ms")
    for line in tracer_cost.report():
        print(line)

    print("\n== The demo's RED point at 100 Mbit/s: fidelity and CPU")
    for line in fast_point.report():
        print(line)


if __name__ == "__main__":
    main()
