"""What an STF runner needs to know of a BMv2 JSON program: tables, their keys and actions.

STF names tables, key fields and actions the way p4c's own runner resolves them: the
full name, or a unique suffix of it (`ipv4_lpm` for `MyIngress.ipv4_lpm`). A key field may
also be written as p4c's runner (bmv2stf.py) reads it: `$N` for a stack index `[N]`
(`extra$0.h`), and `h.valid` or `valid` for a header's validity bit.
"""

import re
from dataclasses import dataclass
from typing import Any


class ProgramError(Exception):
    """A name in the test that the program does not have, or has more than once."""


@dataclass(frozen=True)
class KeyField:
    names: tuple[str, ...]  # the spellings a test may use: JSON key name and target
    match_type: str
    bitwidth: int


@dataclass(frozen=True)
class Action:
    name: str
    params: tuple[tuple[str, int], ...]  # (name, bitwidth) in call order


@dataclass(frozen=True)
class Table:
    name: str
    keys: tuple[KeyField, ...]
    actions: tuple[Action, ...]


def _lookup(kind: str, wanted: str, candidates: dict[str, Any], where: str) -> Any | None:
    """The candidate named `wanted` or by a unique suffix of it; None if there is none."""
    if wanted in candidates:
        return candidates[wanted]
    found = [name for name in candidates if name.endswith("." + wanted)]
    # Several spellings of one object (a key's name and its target) are not ambiguous.
    if found and all(candidates[name] is candidates[found[0]] for name in found):
        return candidates[found[0]]
    if found:
        place = f" in {where}" if where else ""
        raise ProgramError(f"{kind} '{wanted}' is ambiguous{place}: {', '.join(sorted(found))}")
    return None


def _resolve(kind: str, wanted: str, candidates: dict[str, Any], where: str = "") -> Any:
    found = _lookup(kind, wanted, candidates, where)
    if found is None:
        place = f" in {where}" if where else ""
        raise ProgramError(f"no {kind} '{wanted}'{place}")
    return found


class Program:
    def __init__(self, bmv2: dict[str, Any]) -> None:
        widths = self._field_widths(bmv2)
        actions = {
            a["id"]: Action(a["name"], tuple((p["name"], p["bitwidth"]) for p in a["runtime_data"]))
            for a in bmv2["actions"]
        }
        self.tables: dict[str, Table] = {}
        for pipeline in bmv2["pipelines"]:
            for table in pipeline["tables"]:
                keys = tuple(self._key(k, widths) for k in table["key"])
                table_actions = tuple(actions[i] for i in table["action_ids"])
                self.tables[table["name"]] = Table(table["name"], keys, table_actions)
        self.counters = {c["name"]: c["name"] for c in bmv2.get("counter_arrays", [])}
        self.register_widths = {r["name"]: r["bitwidth"] for r in bmv2.get("register_arrays", [])}

    @staticmethod
    def _field_widths(bmv2: dict[str, Any]) -> dict[tuple[str, str], int]:
        types = {t["name"]: t for t in bmv2["header_types"]}
        widths = {}
        for header in bmv2["headers"]:
            for field_name, width, *_ in types[header["header_type"]]["fields"]:
                widths[(header["name"], field_name)] = width
        return widths

    @staticmethod
    def _key(key: dict[str, Any], widths: dict[tuple[str, str], int]) -> KeyField:
        target = key["target"]
        if key["match_type"] == "valid":  # a whole header's validity, BMv2's old key kind
            width, dotted = 1, f"{target}.$valid$"
        elif target[-1] == "$valid$":  # isValid() as p4c keys it: an exact match on a bit
            width, dotted = 1, ".".join(target)
        else:
            width, dotted = widths[tuple(target)], ".".join(target)
        names = tuple(dict.fromkeys(n for n in (key.get("name"), dotted) if n))
        return KeyField(names, key["match_type"], width)

    def counter(self, name: str) -> str:
        """A counter array's JSON name, from its name or a suffix of it."""
        return _resolve("counter", name, self.counters)

    def register(self, name: str) -> tuple[str, int]:
        """A register array's JSON name and cell width."""
        full = _resolve("register", name, {n: n for n in self.register_widths})
        return full, self.register_widths[full]

    def table(self, name: str) -> Table:
        return _resolve("table", name, self.tables)

    @staticmethod
    def action(table: Table, name: str) -> Action:
        return _resolve("action", name, {a.name: a for a in table.actions}, f"table {table.name}")

    @staticmethod
    def key_field(table: Table, name: str) -> KeyField:
        spellings = {spelling: key for key in table.keys for spelling in key.names}
        where = f"table {table.name}"
        indexed = re.sub(r"\$([0-9]+)", r"[\1]", name)
        valid = "$valid$" if indexed == "valid" else re.sub(r"\.valid$", ".$valid$", indexed)
        for spelling in (indexed, valid):
            found = _lookup("key field", spelling, spellings, where)
            if found is not None:
                return found
        return _resolve("key field", name, spellings, where)
