"""Resubmit, recirculate, clone with a field list and truncate, through
fixtures/passes.p4 (see its header comment). Instance types are BMv2's:
0 normal, 1 ingress clone, 4 recirculated, 6 resubmitted."""

import pytest

from p4aqm.switch._dataplane import Dataplane


def op(code: int) -> bytes:
    return bytes([code, 0, 0xFF, 0xFF, 0xFF]) + b"payload"


def fields(pkt: bytes) -> dict[str, int]:
    return dict(zip(("op", "n", "itype", "kept", "lost"), pkt[:5], strict=True))


@pytest.fixture
def dp(passes_json: bytes) -> Dataplane:
    d = Dataplane()
    for p in (1, 2, 3):
        d.add_memory_port(p)
    d.load_pipeline(passes_json)
    return d


def test_resubmit_keeps_only_its_field_list(dp: Dataplane) -> None:
    dp.inject(1, op(1))
    [(port, pkt)] = dp.take_output()
    assert port == 2
    assert fields(pkt) == {"op": 1, "n": 1, "itype": 6, "kept": 7, "lost": 0}
    assert dp.port_stats(1)["rx_packets"] == 1


def test_recirculate_runs_the_deparsed_packet_through_ingress_again(dp: Dataplane) -> None:
    dp.inject(1, op(2))
    [(port, pkt)] = dp.take_output()
    # Egress ran twice (n = 2); the second ingress saw instance type 4 and
    # the kept metadata.
    assert port == 2
    assert fields(pkt) == {"op": 2, "n": 2, "itype": 4, "kept": 3, "lost": 0}


def test_ingress_clone_keeps_its_field_list(dp: Dataplane) -> None:
    dp.clone_session_set(9, [(3, 0)])
    dp.inject(1, op(3))
    out = dict(dp.take_output())
    assert fields(out[2])["itype"] == 0
    assert fields(out[3])["itype"] == 1 and fields(out[3])["kept"] == 5


def test_truncate(dp: Dataplane) -> None:
    dp.inject(1, op(4))
    [(_, pkt)] = dp.take_output()
    assert len(pkt) == 6


def test_endless_resubmit_is_dropped(dp: Dataplane) -> None:
    dp.inject(1, op(5))
    assert dp.take_output() == []
