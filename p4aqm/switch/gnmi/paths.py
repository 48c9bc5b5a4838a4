"""Resolving the gNMI paths of the switch's run-time controls (named in p4aqm/schema.py):
queues, links and port counters.

`queue[id=*]` addresses every queue of the port (Set only). A Get path may stop at a
container (`.../config`, `.../state`, `.../counters`) to read every leaf below it.
The reference for users is p4aqm/switch/README.md.
"""

from dataclasses import dataclass

import grpc
from finsy.proto import gnmi

from p4aqm.schema import CONTAINER_ELEMENTS, LEAVES, MAX_PORT, MAX_QUEUE, ROOT, WRITABLE, Group
from p4aqm.switch.runtime.errors import P4RuntimeError, invalid, not_found


@dataclass(frozen=True)
class Leaf:
    """One value of a container of a port."""

    port: int
    group: Group
    name: str
    # The queue of queue-config and queue-state leaves; None means every queue of the port.
    queue: int | None = None

    @property
    def writable(self) -> bool:
        return self.group in WRITABLE

    def path(self) -> gnmi.Path:
        """The full path of this leaf, as a Get answers it."""
        elems = [gnmi.PathElem(name=ROOT), gnmi.PathElem(name="ports")]
        elems.append(gnmi.PathElem(name="port", key={"id": str(self.port)}))
        queue = "*" if self.queue is None else str(self.queue)
        for name in CONTAINER_ELEMENTS[self.group]:
            elems.append(gnmi.PathElem(name=name, key={"id": queue} if name == "queue" else {}))
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
        queue = _key(rest[1], "queue", MAX_QUEUE, wildcard=True)
    else:
        queue = None
    for group, container in CONTAINER_ELEMENTS.items():
        if tuple(names[: len(container)]) == container:
            return _leaves(port, group, names[len(container) :], queue)
    raise _NoSuchPath


def _leaves(port: int, group: Group, tail: list[str], queue: int | None) -> list[Leaf]:
    leaves = LEAVES[group]
    if len(tail) > 1 or (tail and tail[0] not in leaves):
        raise _NoSuchPath
    return [Leaf(port, group, name, queue) for name in (tail or leaves)]
