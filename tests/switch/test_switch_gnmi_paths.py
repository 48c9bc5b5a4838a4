"""gNMI paths of the run-time controls: what each path names, and what is refused."""

import grpc
import pytest
from finsy import GNMIPath
from finsy.proto import gnmi

from p4aqm.switch.gnmi.paths import Leaf, path_text, resolve
from p4aqm.switch.runtime.errors import P4RuntimeError

PORT = "/p4aqm/ports/port[id=3]"


def _resolve(text: str, prefix: str = "") -> list[Leaf]:
    return resolve(GNMIPath(prefix).path if prefix else gnmi.Path(), GNMIPath(text).path)


def test_leaves() -> None:
    assert _resolve(f"{PORT}/queues/queue[id=1]/config/rate-bps") == [
        Leaf(3, "queue-config", "rate-bps", 1)
    ]
    assert _resolve(f"{PORT}/queues/queue[id=*]/config/depth-pkts") == [
        Leaf(3, "queue-config", "depth-pkts", None)
    ]
    assert _resolve(f"{PORT}/link/config/delay-us") == [Leaf(3, "link-config", "delay-us")]
    assert _resolve(f"{PORT}/state/counters/tm-drops") == [Leaf(3, "port-counters", "tm-drops")]
    assert _resolve(f"{PORT}/queues/queue[id=0]/state/drops") == [
        Leaf(3, "queue-state", "drops", 0)
    ]


def test_containers_expand_and_prefixes_join() -> None:
    names = [leaf.name for leaf in _resolve("state/counters", prefix=PORT)]
    assert names == ["rx-packets", "tx-packets", "tm-drops", "rx-drops", "tx-drops"]
    assert len(_resolve(f"{PORT}/queues/queue[id=0]/config")) == 4


def test_leaf_path_round_trips() -> None:
    leaf = Leaf(7, "queue-config", "rate-pps", 2)
    assert path_text(leaf.path()) == "/p4aqm/ports/port[id=7]/queues/queue[id=2]/config/rate-pps"
    assert _resolve(path_text(leaf.path())) == [leaf]


@pytest.mark.parametrize(
    ("text", "code", "message"),
    [
        ("/interfaces/interface[name=eth0]", "UNIMPLEMENTED", "only /p4aqm paths"),
        ("/p4aqm/queues", "NOT_FOUND", "no such path /p4aqm/queues"),
        (f"{PORT}/link/config/jitter-us", "NOT_FOUND", "link/config/jitter-us"),
        (f"{PORT}/queues/queue[id=0]/config/rate-bps/extra", "NOT_FOUND", "no such path"),
        ("/p4aqm/ports/port[id=512]/link/config/delay-us", "INVALID_ARGUMENT", "0..511"),
        ("/p4aqm/ports/port[id=x]/link/config/delay-us", "INVALID_ARGUMENT", "port id 'x'"),
        ("/p4aqm/ports/port/link/config/delay-us", "INVALID_ARGUMENT", "port[id=N]"),
        ("/p4aqm/ports/port[id=*]/link/config/delay-us", "INVALID_ARGUMENT", "port id '*'"),
        (f"{PORT}/queues/queue[id=8]/config/rate-bps", "INVALID_ARGUMENT", "queue id '8'"),
        (f"{PORT}/link[id=1]/config/delay-us", "INVALID_ARGUMENT", "'link' takes no keys"),
    ],
)
def test_bad_paths(text: str, code: str, message: str) -> None:
    with pytest.raises(P4RuntimeError) as info:
        _resolve(text)
    assert info.value.code == getattr(grpc.StatusCode, code)
    assert message in info.value.message
