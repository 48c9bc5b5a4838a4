"""The gNMI paths of the switch's run-time controls: queues, links and port counters.

    /p4aqm/ports/port[id=N]/queues/queue[id=Q]/config/{rate-bps,rate-pps,depth-packets,depth-bytes}
    /p4aqm/ports/port[id=N]/queues/queue[id=Q]/state/{depth,drops}
    /p4aqm/ports/port[id=N]/link/config/{delay-us,rate-bps}
    /p4aqm/ports/port[id=N]/state/counters/{rx-packets,tx-packets,tm-drops,rx-drops,tx-drops}

`queue[id=*]` addresses every queue of the port (Set only). A Get path may stop at a
container (`.../config`, `.../state`, `.../counters`) to read every leaf below it.
The reference for users is p4switch/README.md.
"""

from dataclasses import dataclass

import grpc
from finsy.proto import gnmi

from p4switch.runtime.errors import P4RuntimeError, invalid, not_found

ROOT = "p4aqm"
MAX_PORT = 511  # v1model ports are bit<9>
QUEUE_CONFIG = ("rate-bps", "rate-pps", "depth-packets", "depth-bytes")
QUEUE_STATE = ("depth", "drops")
LINK_CONFIG = ("delay-us", "rate-bps")
PORT_COUNTERS = ("rx-packets", "tx-packets", "tm-drops", "rx-drops", "tx-drops")


@dataclass(frozen=True)
class Leaf:
    """One value: `group` is queue-config, queue-state, link-config or port-counters."""

    port: int
    group: str
    name: str
    # The queue of queue-config and queue-state leaves; None means every queue of the port.
    queue: int | None = None

    @property
    def writable(self) -> bool:
        return self.group in ("queue-config", "link-config")

    def path(self) -> gnmi.Path:
        """The full path of this leaf, as a Get answers it."""
        elems = [gnmi.PathElem(name=ROOT), gnmi.PathElem(name="ports")]
        elems.append(gnmi.PathElem(name="port", key={"id": str(self.port)}))
        queue = "*" if self.queue is None else str(self.queue)
        tail = {
            "queue-config": [("queues", None), ("queue", queue), ("config", None)],
            "queue-state": [("queues", None), ("queue", queue), ("state", None)],
            "link-config": [("link", None), ("config", None)],
            "port-counters": [("state", None), ("counters", None)],
        }[self.group]
        for name, key in tail:
            elems.append(gnmi.PathElem(name=name, key={"id": key} if key is not None else {}))
        elems.append(gnmi.PathElem(name=self.name))
        return gnmi.Path(elem=elems)


def path_text(path: gnmi.Path) -> str:
    parts = []
    for elem in path.elem:
        keys = "".join(f"[{k}={v}]" for k, v in sorted(elem.key.items()))
        parts.append(elem.name + keys)
    return "/" + "/".join(parts)


def _key(elem: gnmi.PathElem, what: str, maximum: int, wildcard: bool) -> int | None:
    if set(elem.key) != {"id"}:
        raise invalid(f"'{elem.name}' needs exactly one key, id: {elem.name}[id=N]")
    text = elem.key["id"]
    if text == "*" and wildcard:
        return None
    if not text.isdigit() or int(text) > maximum:
        raise invalid(f"{what} id '{text}' is not a number in 0..{maximum}")
    return int(text)


def _no_keys(elem: gnmi.PathElem) -> None:
    if elem.key:
        raise invalid(f"'{elem.name}' takes no keys")


def resolve(prefix: gnmi.Path, path: gnmi.Path) -> list[Leaf]:
    """The leaves that `prefix` + `path` names (several for a container path).

    Raises P4RuntimeError: INVALID_ARGUMENT for a malformed path, NOT_FOUND for a path
    under /p4aqm that names nothing the switch has, UNIMPLEMENTED for any other model
    (such as OpenConfig's /interfaces, which clients like finsy probe for and skip when
    it is UNIMPLEMENTED)."""
    if path.element or prefix.element:
        raise invalid("gNMI paths with the deprecated 'element' field are not supported")
    full = gnmi.Path(elem=[*prefix.elem, *path.elem])
    text = path_text(full)
    if not full.elem or full.elem[0].name != ROOT:
        raise P4RuntimeError(
            grpc.StatusCode.UNIMPLEMENTED, f"gNMI path {text}: only /{ROOT} paths are served"
        )
    try:
        return _resolve(list(full.elem))
    except _NoSuchPath:
        raise not_found(f"no such path {text}: see the paths under /{ROOT}/ports") from None


class _NoSuchPath(Exception):
    pass


def _resolve(elems: list[gnmi.PathElem]) -> list[Leaf]:
    names = [e.name for e in elems]
    if names[1:3] != ["ports", "port"]:
        raise _NoSuchPath
    _no_keys(elems[0])
    _no_keys(elems[1])
    port = _key(elems[2], "port", MAX_PORT, wildcard=False)
    assert port is not None
    rest = elems[3:]
    for elem in rest:
        if elem.name != "queue":
            _no_keys(elem)
    names = [e.name for e in rest]
    if names[:2] == ["queues", "queue"] and len(rest) >= 3:
        queue = _key(rest[1], "queue", 7, wildcard=True)
        group = {"config": "queue-config", "state": "queue-state"}.get(names[2])
        leaves = QUEUE_CONFIG if names[2] == "config" else QUEUE_STATE
        return _leaves(port, group, leaves, names[3:], queue)
    if names[:2] == ["link", "config"]:
        return _leaves(port, "link-config", LINK_CONFIG, names[2:], None)
    if names[:2] == ["state", "counters"]:
        return _leaves(port, "port-counters", PORT_COUNTERS, names[2:], None)
    raise _NoSuchPath


def _leaves(
    port: int, group: str | None, leaves: tuple[str, ...], tail: list[str], queue: int | None
) -> list[Leaf]:
    if group is None or len(tail) > 1 or (tail and tail[0] not in leaves):
        raise _NoSuchPath
    return [Leaf(port, group, name, queue) for name in (tail or leaves)]
