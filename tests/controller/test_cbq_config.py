"""CBQ's config: its checks name the field at fault, its classes become the classifier's
entries in order with the default class last, and its class queues become per-priority
queue settings, over gNMI for our switch and as simple_switch_CLI commands for BMv2."""

import pytest
from finsy import GNMIPath
from pydantic import ValidationError

from p4aqm.controller.bmv2_queues import queue_commands
from p4aqm.controller.config import ControllerConfig, LinkConfig, PortConfig, QueueConfig
from p4aqm.controller.disciplines import CbqConfig, RedConfig, priority_queues
from p4aqm.controller.port_control import QUEUE_HEADROOM_PKTS, class_settings, class_updates
from p4aqm.schema import Group, LeafName, leaf_path

LINK_BPS = 10_000_000
MARKED = {"traffic_class": "marked", "protocol": 17, "dscp": 46, "priority": 2,
          "rate_bps": 1_500_000, "limit_pkts": 10}  # fmt: skip
TCP = {"traffic_class": "tcp", "protocol": 6, "priority": 1, "rate_bps": 7_000_000,
       "limit_pkts": 60}  # fmt: skip
OTHER = {"traffic_class": "other", "priority": 0, "rate_bps": 1_500_000, "limit_pkts": 10,
         "borrow": True}  # fmt: skip


def cbq(*classes: dict, default_priority: int = 0) -> CbqConfig:
    return CbqConfig(
        classes=list(classes or (MARKED, TCP, OTHER)), default_priority=default_priority
    )


def error_of(**kwargs: object) -> str:
    with pytest.raises(ValidationError) as raised:
        CbqConfig(**kwargs)
    return str(raised.value)


def test_the_paper_classes_load() -> None:
    config = cbq()
    assert config.priority_queues() == 3
    assert config.limit_pkts == 60
    assert [(q.priority, q.rate_bps) for q in config.class_queues()] == [
        (2, 1_500_000),
        (1, 7_000_000),
        (0, None),  # it borrows: the port's rate drains it
    ]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"priority": 8}, "priority"),
        ({"rate_bps": 0}, "rate_bps"),
        ({"limit_pkts": 0}, "limit_pkts"),
        ({"dscp": 64}, "dscp"),
        ({"protocol": 256}, "protocol"),
        ({"traffic_class": "Marked UDP"}, "traffic_class"),
    ],
)
def test_a_class_field_out_of_range_is_named(change: dict, field: str) -> None:
    message = error_of(classes=[MARKED | change, OTHER], default_priority=0)
    assert f"classes.0.{field}" in message


def test_two_classes_cannot_share_a_priority() -> None:
    message = error_of(classes=[MARKED, TCP | {"priority": 2}, OTHER], default_priority=0)
    assert "two classes have priority 2" in message


def test_two_classes_cannot_share_a_name() -> None:
    message = error_of(classes=[MARKED, TCP | {"traffic_class": "marked"}], default_priority=1)
    assert "two classes have traffic_class marked" in message


def test_the_default_priority_must_be_a_class() -> None:
    message = error_of(classes=[MARKED, TCP], default_priority=0)
    assert "default_priority: 0 is no class's priority (classes: marked 2, tcp 1)" in message


def test_only_the_lowest_class_borrows() -> None:
    message = error_of(classes=[MARKED | {"borrow": True}, OTHER], default_priority=0)
    assert "marked borrows but is not the lowest priority (other, 0)" in message


def test_the_shares_must_fit_the_link() -> None:
    with pytest.raises(ValidationError) as raised:
        PortConfig(link=LinkConfig(rate_bps=9_000_000), aqm=cbq())
    assert "add up to 10000000 bit/s" in str(raised.value)
    assert "above the port's 9000000 bit/s" in str(raised.value)
    with pytest.raises(ValidationError, match="above the port's 8000000"):
        PortConfig(
            link=LinkConfig(rate_bps=LINK_BPS), queue=QueueConfig(rate_bps=8_000_000), aqm=cbq()
        )


def test_a_port_without_a_link_rate_is_refused() -> None:
    with pytest.raises(ValidationError, match="give link.rate_bps"):
        PortConfig(queue=QueueConfig(rate_bps=LINK_BPS), aqm=cbq())


def test_entries_keep_the_rule_order_and_end_with_the_default_class() -> None:
    entries = cbq(default_priority=1).entries(port=2)
    assert [e.priority for e in entries] == [4, 3, 2, 1]
    default = entries[-1]
    assert default.match == {"standard_metadata.egress_spec": 2}
    assert default.action.args == {"priority": 1, "limit_pkts": 60}
    assert entries[0].match["hdr.ipv4.dscp"] == 46


def test_probes_read_each_class_cell() -> None:
    probes = cbq().probes()
    assert [p.column for p in probes[:2]] == ["marked_occupancy_pkts", "marked_overflow_drops"]
    assert {p.index(2) for p in probes} == {2 * 8 + 2, 2 * 8 + 1, 2 * 8}


def test_other_disciplines_need_one_queue() -> None:
    assert priority_queues(None) == 1
    assert priority_queues(RedConfig(min_th=5, max_th=15, max_p=0.1)) == 1


def ports() -> dict[int, PortConfig]:
    return {2: PortConfig(link=LinkConfig(rate_bps=LINK_BPS), aqm=cbq())}


def test_gnmi_sets_each_class_queue() -> None:
    depth = {q.priority: d for _, q, d in class_settings(ports())}
    assert depth == {p: limit + QUEUE_HEADROOM_PKTS for p, limit in ((2, 10), (1, 60), (0, 10))}
    paths = {str(path): value for path, value in class_updates(ports())}

    def queue(priority: int, leaf: LeafName) -> str:
        return str(GNMIPath(leaf_path(Group.QUEUE_CONFIG, 2, leaf, priority)))

    assert paths[queue(2, LeafName.RATE_BPS)] == 1_500_000
    assert paths[queue(1, LeafName.DEPTH_PKTS)] == 60 + QUEUE_HEADROOM_PKTS
    assert queue(0, LeafName.RATE_BPS) not in paths  # it borrows
    assert len(paths) == 5


def test_bmv2_commands_come_after_the_port_ones() -> None:
    config = ControllerConfig.model_validate(
        {"pipeline": {"p4info": "x", "bmv2_json": "y"}, "ports": ports()}
    )
    commands, notes = queue_commands(config, {2: 124}, class_settings(config.ports))
    # 1.5 Mbit/s in 1514-byte packets is 124 packets/s; the port's 10 Mbit/s is 826.
    assert commands == [
        "set_queue_depth 124 2",
        "set_queue_rate 826 2",
        "set_queue_depth 74 2 2",
        "set_queue_rate 124 2 2",
        "set_queue_depth 124 2 1",
        "set_queue_rate 578 2 1",
        "set_queue_depth 74 2 0",
    ]
    assert "port 2 priority 2: class rate 1500000 bit/s = 124 pkt/s" in notes[1]
