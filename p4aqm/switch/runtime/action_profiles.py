"""ActionProfileMember and ActionProfileGroup: the members and groups of v1model action
profiles and selectors, mirrored into the dataplane, and the references that groups and
table entries hold to them (P4Runtime spec, 9.2: a member or group in use cannot be
deleted).

Member and group ids are the client's; the dataplane has handles of its own, as BMv2
does, and this module maps one onto the other.
"""

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import grpc
from finsy.proto import p4i, p4r

from p4aqm.switch.runtime.action_data import action_arguments
from p4aqm.switch.runtime.codec import PORT_BITS, decode_uint
from p4aqm.switch.runtime.errors import (
    P4RuntimeError,
    call_dataplane,
    invalid,
    not_found,
)
from p4aqm.switch.runtime.pipeline import ActionProfileInfo, Pipeline, TableInfo

# A reference to a member or a group: (profile id, member or group id).
Ref = tuple[int, int]
_T = TypeVar("_T")


class ActionProfileApi(Protocol):
    def profile_member_add(self, profile: str, action: str, action_data: list[bytes]) -> int: ...

    def profile_member_modify(
        self, profile: str, member: int, action: str, action_data: list[bytes]
    ) -> None: ...

    def profile_member_delete(self, profile: str, member: int) -> None: ...

    def profile_group_add(self, profile: str) -> int: ...

    def profile_group_set(
        self, profile: str, group: int, members: list[tuple[int, int]]
    ) -> None: ...

    def profile_group_delete(self, profile: str, group: int) -> None: ...


@dataclass(frozen=True)
class EntryTarget:
    """What an entry of a table with an action profile points to in the dataplane: a
    client's member or group (`ref`, which the entry holds while it points there), or a
    group of its own made for a one-shot action set (`one_shot`: that group's members)."""

    is_group: bool
    handle: int
    ref: Ref | None = None
    one_shot: tuple[int, ...] = ()
    profile_id: int = 0


@dataclass
class _Stored:
    handle: int
    message: p4r.ActionProfileMember | p4r.ActionProfileGroup


def _in_use(what: str) -> P4RuntimeError:
    return P4RuntimeError(grpc.StatusCode.FAILED_PRECONDITION, f"{what} is in use")


def _exhausted(what: str) -> P4RuntimeError:
    return P4RuntimeError(grpc.StatusCode.RESOURCE_EXHAUSTED, what)


class ActionProfiles:
    """The members and groups of every action profile of one pipeline."""

    def __init__(self, dataplane: ActionProfileApi, pipeline: Pipeline) -> None:
        self._dp = dataplane
        self._pipeline = pipeline
        self._members: dict[int, dict[int, _Stored]] = {p: {} for p in pipeline.action_profiles}
        self._groups: dict[int, dict[int, _Stored]] = {p: {} for p in pipeline.action_profiles}
        self._member_refs: Counter[Ref] = Counter()
        self._group_refs: Counter[Ref] = Counter()
        # Live one-shot groups per profile: P4Runtime forbids mixing them with a
        # client's members and groups in one profile.
        self._one_shots: Counter[int] = Counter()
        self.members = _EntityHandler(self.write_member, self.read_members)
        self.groups = _EntityHandler(self.write_group, self.read_groups)

    def _profile(self, profile_id: int) -> ActionProfileInfo:
        if profile_id == 0:
            raise invalid("action_profile_id is 0")
        return self._pipeline.action_profile(profile_id)

    # -- members -------------------------------------------------------------------------

    def write_member(self, update_type: int, msg: p4r.ActionProfileMember) -> None:
        profile = self._profile(msg.action_profile_id)
        members = self._members[profile.id]
        what = f"action profile '{profile.name}' member {msg.member_id}"
        stored = members.get(msg.member_id)
        if update_type == p4r.Update.INSERT:
            if stored is not None:
                raise P4RuntimeError(grpc.StatusCode.ALREADY_EXISTS, f"{what} exists")
            self._check_not_one_shot(profile)
            if profile.size and len(members) >= profile.size:
                raise _exhausted(f"action profile '{profile.name}' is full ({profile.size})")
            name, args, canonical = self._member_action(profile, msg)
            handle = call_dataplane(self._dp.profile_member_add, profile.name, name, args)
            members[msg.member_id] = _Stored(handle, canonical)
        elif update_type == p4r.Update.MODIFY:
            if stored is None:
                raise not_found(f"{what} does not exist")
            name, args, canonical = self._member_action(profile, msg)
            call_dataplane(self._dp.profile_member_modify, profile.name, stored.handle, name, args)
            stored.message = canonical
        elif update_type == p4r.Update.DELETE:
            if stored is None:
                raise not_found(f"{what} does not exist")
            if self._member_refs[(profile.id, msg.member_id)]:
                raise _in_use(f"{what} (by a group or a table entry)")
            call_dataplane(self._dp.profile_member_delete, profile.name, stored.handle)
            del members[msg.member_id]
        else:
            raise invalid(f"update type {update_type} is not INSERT, MODIFY or DELETE")

    def _member_action(
        self, profile: ActionProfileInfo, msg: p4r.ActionProfileMember
    ) -> tuple[str, list[bytes], p4r.ActionProfileMember]:
        """The member's action name and canonical arguments, and the member as stored."""
        if not msg.HasField("action"):
            raise invalid(f"action profile '{profile.name}' member {msg.member_id} has no action")
        action_id = msg.action.action_id
        scopes = [self._pipeline.table(t).action_scopes.get(action_id) for t in profile.table_ids]
        if all(s is None or s == p4i.ActionRef.DEFAULT_ONLY for s in scopes):
            raise invalid(
                f"action id {action_id} is not an action of the tables of "
                f"action profile '{profile.name}'"
            )
        action = self._pipeline.action(action_id)
        args, _ = action_arguments(action, msg.action)
        canonical = p4r.ActionProfileMember(action_profile_id=profile.id, member_id=msg.member_id)
        canonical.action.action_id = action.id
        for param, value in zip(action.params, args, strict=True):
            canonical.action.params.add(param_id=param.id, value=value)
        return action.name, args, canonical

    # -- groups --------------------------------------------------------------------------

    def write_group(self, update_type: int, msg: p4r.ActionProfileGroup) -> None:
        profile = self._profile(msg.action_profile_id)
        if not profile.with_selector:
            raise invalid(f"action profile '{profile.name}' has no selector, so no groups")
        groups = self._groups[profile.id]
        what = f"action profile '{profile.name}' group {msg.group_id}"
        stored = groups.get(msg.group_id)
        if update_type == p4r.Update.INSERT:
            if stored is not None:
                raise P4RuntimeError(grpc.StatusCode.ALREADY_EXISTS, f"{what} exists")
            self._check_not_one_shot(profile)
            members = self._group_members(profile, msg, what)
            handle = call_dataplane(self._dp.profile_group_add, profile.name)
            try:
                call_dataplane(self._dp.profile_group_set, profile.name, handle, members)
            except P4RuntimeError:
                call_dataplane(self._dp.profile_group_delete, profile.name, handle)
                raise
            groups[msg.group_id] = _Stored(handle, _copy(msg))
            self._hold_members(profile.id, msg, +1)
        elif update_type == p4r.Update.MODIFY:
            if stored is None:
                raise not_found(f"{what} does not exist")
            # 0 leaves max_size as the INSERT set it, as PI reads it.
            if msg.max_size and msg.max_size != stored.message.max_size:
                raise invalid(f"{what}: max_size cannot change")
            msg = _copy(msg)
            msg.max_size = stored.message.max_size
            members = self._group_members(profile, msg, what)
            call_dataplane(self._dp.profile_group_set, profile.name, stored.handle, members)
            self._hold_members(profile.id, stored.message, -1)
            stored.message = msg
            self._hold_members(profile.id, msg, +1)
        elif update_type == p4r.Update.DELETE:
            if stored is None:
                raise not_found(f"{what} does not exist")
            if self._group_refs[(profile.id, msg.group_id)]:
                raise _in_use(f"{what} (by a table entry)")
            call_dataplane(self._dp.profile_group_delete, profile.name, stored.handle)
            self._hold_members(profile.id, stored.message, -1)
            del groups[msg.group_id]
        else:
            raise invalid(f"update type {update_type} is not INSERT, MODIFY or DELETE")

    def _group_members(
        self, profile: ActionProfileInfo, msg: p4r.ActionProfileGroup, what: str
    ) -> list[tuple[int, int]]:
        """The group's members as dataplane (handle, weight) pairs, checked."""
        limit = profile.max_group_size
        if msg.max_size < 0:
            raise invalid(f"{what}: negative max_size")
        if limit and msg.max_size > limit:
            raise _exhausted(f"{what}: max_size {msg.max_size} is above max_group_size {limit}")
        limit = msg.max_size or limit
        # A group's size is the sum of its members' weights (P4Runtime 9.2.2; PI).
        size = sum(m.weight for m in msg.members)
        if limit and size > limit:
            raise _exhausted(f"{what}: member weights sum to {size}, above {limit}")
        seen: set[int] = set()
        result = []
        for m in msg.members:
            if m.member_id in seen:
                raise invalid(f"{what}: member {m.member_id} given twice")
            seen.add(m.member_id)
            if m.weight < 1:
                raise invalid(f"{what}: member {m.member_id} has weight {m.weight}, below 1")
            _check_watch(m, f"{what}: member {m.member_id}")
            stored = self._members[profile.id].get(m.member_id)
            if stored is None:
                raise not_found(f"{what}: action profile has no member {m.member_id}")
            result.append((stored.handle, m.weight))
        return result

    def _hold_members(self, profile_id: int, msg: p4r.ActionProfileGroup, delta: int) -> None:
        for m in msg.members:
            self._member_refs[(profile_id, m.member_id)] += delta

    # -- table entries -------------------------------------------------------------------

    def acquire(
        self, table: TableInfo, action: p4r.TableAction
    ) -> tuple[EntryTarget, p4r.TableAction]:
        """What an entry of `table` (which has an action profile) will point to, and its
        action as stored; a one-shot action set gets a dataplane group of its own here,
        which `discard` or `release` deletes."""
        profile = self._pipeline.action_profile(table.implementation_id)
        kind = action.WhichOneof("type")
        if kind == "action_profile_member_id":
            stored = self._members[profile.id].get(action.action_profile_member_id)
            if stored is None:
                raise not_found(
                    f"action profile '{profile.name}' has no member "
                    f"{action.action_profile_member_id}"
                )
            ref = (profile.id, action.action_profile_member_id)
            return EntryTarget(False, stored.handle, ref), action
        if kind == "action_profile_group_id":
            if not profile.with_selector:
                raise invalid(f"action profile '{profile.name}' has no selector, so no groups")
            stored = self._groups[profile.id].get(action.action_profile_group_id)
            if stored is None:
                raise not_found(
                    f"action profile '{profile.name}' has no group {action.action_profile_group_id}"
                )
            ref = (profile.id, action.action_profile_group_id)
            return EntryTarget(True, stored.handle, ref), action
        if kind == "action_profile_action_set":
            return self._one_shot(table, profile, action.action_profile_action_set)
        if kind is None:
            raise invalid(f"table '{table.name}': the entry has no action")
        raise invalid(
            f"table '{table.name}' has action profile '{profile.name}': an entry points to "
            f"a member or a group, got {kind}"
        )

    def point(
        self, table: TableInfo, action: p4r.TableAction, write: Callable[[EntryTarget], _T]
    ) -> tuple[EntryTarget, p4r.TableAction, _T]:
        """`acquire`, then `write` the entry to the dataplane: held if it is written,
        discarded if the write is refused. Returns the target, the action as stored and
        what `write` returned."""
        target, stored_action = self.acquire(table, action)
        try:
            result = write(target)
        except P4RuntimeError:
            self.discard(target)
            raise
        self.hold(target)
        return target, stored_action, result

    def _one_shot(
        self, table: TableInfo, profile: ActionProfileInfo, actions: p4r.ActionProfileActionSet
    ) -> tuple[EntryTarget, p4r.TableAction]:
        """One-shot programming (P4Runtime 9.2.3): the set's actions become a dataplane
        group of members that no client id names, owned by the entry."""
        what = f"table '{table.name}': one-shot action set"
        if not profile.with_selector:
            raise invalid(f"{what}: action profile '{profile.name}' has no selector")
        if self._members[profile.id] or self._groups[profile.id]:
            raise invalid(
                f"{what}: action profile '{profile.name}' has members or groups written by "
                "the client, and P4Runtime forbids mixing them with one-shot sets"
            )
        items = actions.action_profile_actions
        if not items:
            raise invalid(f"{what} is empty")
        size = sum(item.weight for item in items)
        if profile.max_group_size and size > profile.max_group_size:
            raise _exhausted(
                f"{what}: action weights sum to {size}, above {profile.max_group_size}"
            )
        canonical = p4r.TableAction()
        calls = []
        for item in items:
            if item.weight < 1:
                raise invalid(f"{what}: an action has weight {item.weight}, below 1")
            _check_watch(item, what)
            scope = table.action_scopes.get(item.action.action_id)
            if scope is None or scope == p4i.ActionRef.DEFAULT_ONLY:
                raise invalid(f"{what}: table has no action with id {item.action.action_id}")
            info = self._pipeline.action(item.action.action_id)
            args, _ = action_arguments(info, item.action)
            calls.append((info.name, args, item.weight))
            added = canonical.action_profile_action_set.action_profile_actions.add(
                weight=item.weight
            )
            if item.WhichOneof("watch_kind") == "watch":
                added.watch = item.watch
            elif item.WhichOneof("watch_kind") == "watch_port":
                added.watch_port = item.watch_port
            added.action.action_id = info.id
            for param, value in zip(info.params, args, strict=True):
                added.action.params.add(param_id=param.id, value=value)
        members: list[int] = []
        group = None
        try:
            for name, args, _ in calls:
                members.append(
                    call_dataplane(self._dp.profile_member_add, profile.name, name, args)
                )
            group = call_dataplane(self._dp.profile_group_add, profile.name)
            weighted = [(m, w) for m, (_, _, w) in zip(members, calls, strict=True)]
            call_dataplane(self._dp.profile_group_set, profile.name, group, weighted)
        except P4RuntimeError:
            handle = -1 if group is None else group
            self._delete_one_shot(EntryTarget(True, handle, None, tuple(members), profile.id))
            raise
        self._one_shots[profile.id] += 1
        return EntryTarget(True, group, None, tuple(members), profile.id), canonical

    def _check_not_one_shot(self, profile: ActionProfileInfo) -> None:
        if self._one_shots[profile.id]:
            raise invalid(
                f"action profile '{profile.name}' is programmed by one-shot action sets, and "
                "P4Runtime forbids mixing them with members and groups"
            )

    def hold(self, target: EntryTarget) -> None:
        """An entry now points to `target`."""
        if target.ref is not None:
            (self._group_refs if target.is_group else self._member_refs)[target.ref] += 1

    def release(self, target: EntryTarget) -> None:
        """An entry no longer points to `target`."""
        if target.ref is not None:
            (self._group_refs if target.is_group else self._member_refs)[target.ref] -= 1
        else:
            self.discard(target)

    def discard(self, target: EntryTarget) -> None:
        """Undoes `acquire` for an entry that was not written after all: a one-shot
        group goes away; a client's member or group stays as it was."""
        if target.one_shot:
            self._one_shots[target.profile_id] -= 1
            self._delete_one_shot(target)

    def _delete_one_shot(self, target: EntryTarget) -> None:
        name = self._pipeline.action_profile(target.profile_id).name
        if target.handle >= 0:
            call_dataplane(self._dp.profile_group_delete, name, target.handle)
        for member in target.one_shot:
            call_dataplane(self._dp.profile_member_delete, name, member)

    # -- reads ---------------------------------------------------------------------------

    def _profiles(self, profile_id: int) -> list[int]:
        if profile_id == 0:
            return list(self._pipeline.action_profiles)
        return [self._pipeline.action_profile(profile_id).id]

    def read_members(self, query: p4r.ActionProfileMember) -> Iterator[p4r.ActionProfileMember]:
        for profile_id in self._profiles(query.action_profile_id):
            for member_id, stored in self._members[profile_id].items():
                if query.member_id in (0, member_id):
                    yield _copy(stored.message)

    def read_groups(self, query: p4r.ActionProfileGroup) -> Iterator[p4r.ActionProfileGroup]:
        for profile_id in self._profiles(query.action_profile_id):
            for group_id, stored in self._groups[profile_id].items():
                if query.group_id in (0, group_id):
                    yield _copy(stored.message)


@dataclass(frozen=True)
class _EntityHandler:
    """One entity kind of the profiles (members or groups) as Entities dispatches to it."""

    write: Callable[[int, Any], None]
    read: Callable[[Any], Iterator[Any]]


_Message = TypeVar("_Message", p4r.ActionProfileMember, p4r.ActionProfileGroup)


def _copy(message: _Message) -> _Message:
    result = type(message)()
    result.CopyFrom(message)
    return result


def _check_watch(item: Any, what: str) -> None:
    """A member's watch port (`watch_port`, or the older `watch`), checked as a v1model
    port. It is kept and read back, as PI does; the switch has no port status, so a
    watched port never takes its member out of the group (PI would while it is down)."""
    kind = item.WhichOneof("watch_kind")
    if kind == "watch_port":
        decode_uint(item.watch_port, PORT_BITS, f"{what} watch_port")
    elif kind == "watch" and not 0 <= item.watch < 1 << PORT_BITS:
        raise invalid(f"{what}: watch {item.watch} is not a v1model port (0..511)")
