"""The emulation's fidelity: how late packets reach their ports against their scheduled
departure or landing (fixtures/queue_probe.p4 sends everything from port 1 to port 2)."""

from test_traffic_manager import probe, switch


def test_packets_on_time_in_virtual_time_are_not_late(queue_probe_json: bytes) -> None:
    d = switch(queue_probe_json)
    assert d.lateness() == {
        "departures": 0,
        "p50_ns": 0,
        "p99_ns": 0,
        "max_ns": 0,
        "buckets": [],
    }
    d.set_link(2, delay_us=1000, rate_bps=10_000_000)
    for _ in range(5):
        d.inject(1, probe(size=1500))
    d.advance_time(20_000)
    assert len(d.take_output()) == 5
    # advance_time stops the clock at each departure and landing: none is late.
    assert d.lateness() == {
        "departures": 5,
        "p50_ns": 0,
        "p99_ns": 0,
        "max_ns": 0,
        "buckets": [(0, 5)],
    }


def test_packets_still_on_the_wire_are_not_counted(queue_probe_json: bytes) -> None:
    d = switch(queue_probe_json)
    d.set_link(2, delay_us=1000)
    d.inject(1, probe())
    d.advance_time(999)
    assert d.lateness()["departures"] == 0
    d.advance_time(1)
    assert d.lateness()["departures"] == 1
