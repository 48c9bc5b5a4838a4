"""Parsing STF files into commands.

The grammar is p4c's (`backends/bmv2/stf_parser.py`): one command a line, `#` starts a
comment. Besides it, the simple_switch_CLI commands p4c's BMv2 runner passes on to the
switch: mirroring_add, mc_mgrp_create, mc_node_create, mc_node_associate and
register_write. Every command keeps its line number so that a failure can point at it.
"""

import re
from dataclasses import dataclass
from pathlib import Path


class StfSyntaxError(Exception):
    def __init__(self, path: Path, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: error: {message}")


@dataclass(frozen=True)
class Add:
    line: int
    table: str
    priority: int | None
    keys: tuple[tuple[str, str], ...]
    action: str
    args: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class SetDefault:
    line: int
    table: str
    action: str
    args: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Packet:
    line: int
    port: int
    data: bytes


@dataclass(frozen=True)
class Expect:
    """`pattern` is hex nibbles with `*` wildcards; None accepts any packets on the port."""

    line: int
    port: int
    pattern: str | None
    exact_length: bool


@dataclass(frozen=True)
class RemoveAll:
    line: int


@dataclass(frozen=True)
class Wait:
    line: int


@dataclass(frozen=True)
class MirroringAdd:
    """`mirroring_add SESSION PORT`: the clone session sends its copies to PORT."""

    line: int
    session: int
    port: int


@dataclass(frozen=True)
class McGroupCreate:
    line: int
    group: int


@dataclass(frozen=True)
class McNodeCreate:
    """`mc_node_create RID PORT...`: a node, whose handle is the count made before it."""

    line: int
    rid: int
    ports: tuple[int, ...]


@dataclass(frozen=True)
class McNodeAssociate:
    line: int
    group: int
    node: int


@dataclass(frozen=True)
class RegisterWrite:
    line: int
    register: str
    index: int
    value: str  # as written: decimal, 0x or 0b


@dataclass(frozen=True)
class CheckCounter:
    """`check_counter NAME(INDEX) [packets|bytes OP VALUE]`; without a condition it
    only checks that the counter and index exist."""

    line: int
    counter: str
    index: int
    count_type: str | None = None
    op: str | None = None
    value: int | None = None


Command = (
    Add
    | SetDefault
    | Packet
    | Expect
    | RemoveAll
    | Wait
    | MirroringAdd
    | McGroupCreate
    | McNodeCreate
    | McNodeAssociate
    | RegisterWrite
    | CheckCounter
)

_NAME = r"[A-Za-z_$][\w$.\[\]]*"
_ACTION = re.compile(rf"^(?P<name>{_NAME})\s*\((?P<args>[^)]*)\)\s*(=\s*\w+\s*)?$")
_KEY = re.compile(rf"^(?P<name>{_NAME}):(?P<value>\S+)$")
_ARG = re.compile(rf"^\s*(?P<name>{_NAME})\s*:\s*(?P<value>\S+)\s*$")


def parse_stf(path: Path) -> list[Command]:
    commands: list[Command] = []
    for number, raw in enumerate(path.read_text().splitlines(), start=1):
        text = raw.split("#", 1)[0].strip()
        if not text:
            continue
        word, _, rest = text.partition(" ")
        parse = _PARSERS.get(word.lower())
        if parse is None:
            raise StfSyntaxError(path, number, f"unknown STF command '{word}'")
        try:
            command = parse(number, rest.strip())
        except ValueError as exc:
            raise StfSyntaxError(path, number, f"{word}: {exc}") from None
        if command is not None:
            commands.append(command)
    return commands


def _args(text: str) -> tuple[tuple[str, str], ...]:
    if not text.strip():
        return ()
    pairs = []
    for part in text.split(","):
        match = _ARG.match(part)
        if not match:
            raise ValueError(f"action argument '{part.strip()}' is not NAME:VALUE")
        pairs.append((match["name"], match["value"]))
    return tuple(pairs)


def _action(text: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    match = _ACTION.match(text.strip())
    if not match:
        raise ValueError(f"expected ACTION(ARG:VALUE, ...), got '{text.strip()}'")
    return match["name"], _args(match["args"])


_ADD_USAGE = "expected 'add TABLE [PRIORITY] KEY:VALUE ... ACTION(ARG:VALUE, ...)'"


def _parse_add(line: int, rest: str) -> Add:
    head, paren, _ = rest.partition("(")
    words = head.split()
    if not paren or len(words) < 2:
        raise ValueError(_ADD_USAGE)
    table, *key_words, action_name = words
    priority = None
    if key_words and key_words[0].isdigit():
        priority = int(key_words.pop(0))
    keys = []
    for word in key_words:
        match = _KEY.match(word)
        if not match:
            raise ValueError(f"key '{word}' is not FIELD:VALUE")
        keys.append((match["name"], match["value"]))
    action, args = _action(action_name + rest[len(head) :])
    return Add(line, table, priority, tuple(keys), action, args)


def _parse_setdefault(line: int, rest: str) -> SetDefault:
    table, _, action_text = rest.partition(" ")
    if not table or not action_text:
        raise ValueError("expected 'setdefault TABLE ACTION(ARG:VALUE, ...)'")
    action, args = _action(action_text)
    return SetDefault(line, table, action, args)


def _port(word: str) -> int:
    if not word.isdigit():
        raise ValueError(f"port '{word}' is not a decimal number")
    return int(word)


def _parse_packet(line: int, rest: str) -> Packet:
    port, _, data = rest.partition(" ")
    hex_digits = "".join(data.split())
    if not re.fullmatch(r"[0-9A-Fa-f]*", hex_digits):
        raise ValueError("packet data must be hex digits")
    # As p4c's runner reads them two at a time: a last lone digit is a byte of its own
    # (`...20 0` ends in 0x20 0x00), and no digits at all is an empty packet.
    data_bytes = bytes(int(hex_digits[i : i + 2], 16) for i in range(0, len(hex_digits), 2))
    return Packet(line, _port(port), data_bytes)


def _parse_expect(line: int, rest: str) -> Expect:
    port, _, data = rest.partition(" ")
    pattern = "".join(data.split())
    exact_length = pattern.endswith("$")
    pattern = pattern.removesuffix("$")
    if not re.fullmatch(r"[0-9A-Fa-f*]*", pattern):
        raise ValueError("expected data must be hex digits or '*', optionally ending in '$'")
    return Expect(line, _port(port), pattern.upper() or None, exact_length)


def _parse_remove(line: int, rest: str) -> RemoveAll:
    if rest.lower() != "all":
        raise ValueError("only 'remove all' is supported")
    return RemoveAll(line)


def _parse_no_packet(line: int, rest: str) -> None:
    # Ports without an expect must stay silent anyway; the command adds nothing.
    if rest:
        raise ValueError("no_packet takes no arguments")


def _number(word: str, what: str) -> int:
    try:
        return int(word, 0)
    except ValueError:
        raise ValueError(f"{what} '{word}' is not a number") from None


def _numbers(rest: str, names: tuple[str, ...]) -> list[int]:
    words = rest.split()
    if len(words) != len(names):
        raise ValueError(f"expected {' '.join(n.upper() for n in names)}")
    return [_number(w, n) for w, n in zip(words, names, strict=True)]


def _parse_mirroring_add(line: int, rest: str) -> MirroringAdd:
    session, port = _numbers(rest, ("session", "port"))
    return MirroringAdd(line, session, port)


def _parse_mc_mgrp_create(line: int, rest: str) -> McGroupCreate:
    [group] = _numbers(rest, ("group",))
    return McGroupCreate(line, group)


def _parse_mc_node_create(line: int, rest: str) -> McNodeCreate:
    words = rest.split()
    if len(words) < 2:
        raise ValueError("expected RID PORT...")
    rid = _number(words[0], "rid")
    return McNodeCreate(line, rid, tuple(_number(w, "port") for w in words[1:]))


def _parse_mc_node_associate(line: int, rest: str) -> McNodeAssociate:
    group, node = _numbers(rest, ("group", "node"))
    return McNodeAssociate(line, group, node)


def _parse_register_write(line: int, rest: str) -> RegisterWrite:
    words = rest.split()
    if len(words) != 3:
        raise ValueError("expected REGISTER INDEX VALUE")
    return RegisterWrite(line, words[0], _number(words[1], "index"), words[2])


_CHECK_COUNTER = re.compile(
    rf"^(?P<name>{_NAME})\s*\(\s*(?P<index>\w+)\s*\)"
    r"(\s+(?P<type>packets|bytes)\s*(?P<op>==|!=|<=|<|>=|>)\s*(?P<value>\w+))?$"
)


def _parse_check_counter(line: int, rest: str) -> CheckCounter:
    match = _CHECK_COUNTER.match(rest)
    if not match:
        raise ValueError("expected COUNTER(INDEX) [packets|bytes OP VALUE]")
    value = match["value"]
    return CheckCounter(
        line,
        match["name"],
        _number(match["index"], "index"),
        match["type"],
        match["op"],
        None if value is None else _number(value, "value"),
    )


_PARSERS = {
    "add": _parse_add,
    "setdefault": _parse_setdefault,
    "packet": _parse_packet,
    "expect": _parse_expect,
    "remove": _parse_remove,
    "wait": lambda line, rest: Wait(line),
    "no_packet": _parse_no_packet,
    "check_counter": _parse_check_counter,
    "mc_mgrp_create": _parse_mc_mgrp_create,
    "mc_node_create": _parse_mc_node_create,
    "mc_node_associate": _parse_mc_node_associate,
    "mirroring_add": _parse_mirroring_add,
    "register_write": _parse_register_write,
}
