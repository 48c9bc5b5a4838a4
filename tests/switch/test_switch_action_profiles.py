"""Action profiles over P4Runtime on memory ports: members and groups written, read and
refused as the P4Runtime spec says, and packets that run the member an entry points to,
or the member a group chooses as BMv2 does (selector hash modulo the group's size, over
its members in handle order, a member of weight w counted w times)."""

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from finsy.proto import p4r
from switch_helpers import Client, Program, insert, primary_with, update, write_errors

PROGRAM = Path(__file__).resolve().parent / "programs" / "action_profiles.p4"
ECMP_DST = 0x0000_0000_00E1
RETAG_DST = 0x0000_0000_00E2


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Program:
    return Program.compile(PROGRAM, tmp_path_factory.mktemp("action_profiles"))


@pytest.fixture
def client(server_port: int, program: Program) -> Iterator[Client]:
    yield from primary_with(server_port, program)


def _member(program: Program, profile: str, member_id: int, action: str, value: bytes):
    msg = p4r.ActionProfileMember(
        action_profile_id=program.id_of("action_profiles", profile), member_id=member_id
    )
    msg.action.action_id = program.action_id(action)
    msg.action.params.add(param_id=1, value=value)
    return p4r.Entity(action_profile_member=msg)


def _port_member(program: Program, member_id: int, port: int) -> p4r.Entity:
    return _member(program, "IngressImpl.ecmp_sel", member_id, "IngressImpl.to_port", bytes([port]))


def _group(program: Program, group_id: int, *members: tuple[int, int]) -> p4r.Entity:
    msg = p4r.ActionProfileGroup(
        action_profile_id=program.id_of("action_profiles", "IngressImpl.ecmp_sel"),
        group_id=group_id,
    )
    for member_id, weight in members:
        msg.members.add(member_id=member_id, weight=weight)
    return p4r.Entity(action_profile_group=msg)


def _entry(program: Program, table: str, dst: int, **target: int) -> p4r.TableEntry:
    return p4r.TableEntry(
        table_id=program.table_id(table),
        match=[p4r.FieldMatch(field_id=1, exact=p4r.FieldMatch.Exact(value=bytes([dst])))],
        action=p4r.TableAction(**target),
    )


def _write(client: Client, kind: int, entity: p4r.Entity) -> None:
    client.write(p4r.Update(type=kind, entity=entity))


def _error(client: Client, kind: int, entity: p4r.Entity) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as info:
        _write(client, kind, entity)
    [error] = write_errors(info.value)
    return error


def _frame(dst: int, src: int) -> bytes:
    return dst.to_bytes(6, "big") + src.to_bytes(6, "big") + b"\x12\x34" + b"payload"


def _send(dataplane: Any, dst: int, src: int) -> tuple[int, bytes]:
    dataplane.inject(1, _frame(dst, src))
    [(port, out)] = dataplane.take_output()
    return port, out


def _ports(dataplane: Any, sources: range) -> list[int]:
    return [_send(dataplane, ECMP_DST, src)[0] for src in sources]


INSERT, MODIFY, DELETE = p4r.Update.INSERT, p4r.Update.MODIFY, p4r.Update.DELETE


def test_a_group_chooses_by_hash_over_its_members_in_handle_order(
    client: Client, program: Program, dataplane: Any
) -> None:
    # Handles follow insertion (30, 10, 20), not member ids: BMv2's order is its handles'.
    for member_id, port in ((30, 1), (10, 2), (20, 3)):
        _write(client, INSERT, _port_member(program, member_id, port))
    _write(client, INSERT, _group(program, 7, (10, 1), (20, 1), (30, 1)))
    client.write(insert(_entry(program, "IngressImpl.ecmp", ECMP_DST, action_profile_group_id=7)))
    # identity hash of the 48-bit source MAC, modulo 3
    assert _ports(dataplane, range(6)) == [1, 2, 3, 1, 2, 3]

    _write(client, MODIFY, _group(program, 7, (20, 1), (30, 2)))
    assert _ports(dataplane, range(6)) == [1, 1, 3, 1, 1, 3]

    # A member's new action takes effect in the groups that hold it.
    _write(client, MODIFY, _port_member(program, 20, 2))
    assert _ports(dataplane, range(3)) == [1, 1, 2]

    [group] = client.read(_group(program, 0))
    assert [(m.member_id, m.weight) for m in group.action_profile_group.members] == [
        (20, 1),
        (30, 2),
    ]
    members = client.read(p4r.Entity(action_profile_member=p4r.ActionProfileMember()))
    assert sorted(m.action_profile_member.member_id for m in members) == [10, 20, 30]


def test_an_entry_runs_its_member_and_a_miss_runs_no_action(
    client: Client, program: Program, dataplane: Any
) -> None:
    profile = "retag_profile"
    _write(client, INSERT, _member(program, profile, 5, "IngressImpl.set_type", b"\x08\x00"))
    client.write(
        insert(_entry(program, "IngressImpl.retag", RETAG_DST, action_profile_member_id=5))
    )
    port, out = _send(dataplane, RETAG_DST, 1)
    assert (port, out[12:14]) == (3, b"\x08\x00")
    _write(client, MODIFY, _member(program, profile, 5, "IngressImpl.set_type", b"\x86\xdd"))
    assert _send(dataplane, RETAG_DST, 1)[1][12:14] == b"\x86\xdd"
    # No entry in either table: egress_spec stays as the apply block set it, port 3.
    assert _send(dataplane, 0x99, 1) == (3, _frame(0x99, 1))

    [read] = client.read(p4r.Entity(table_entry=_entry(program, "IngressImpl.retag", RETAG_DST)))
    assert read.table_entry.action.action_profile_member_id == 5


def test_members_and_groups_in_use_cannot_be_deleted(client: Client, program: Program) -> None:
    _write(client, INSERT, _port_member(program, 1, 1))
    _write(client, INSERT, _group(program, 2, (1, 1)))
    entry = _entry(program, "IngressImpl.ecmp", ECMP_DST, action_profile_group_id=2)
    client.write(insert(entry))
    code, message = _error(client, DELETE, _port_member(program, 1, 1))
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "member 1" in message
    code, message = _error(client, DELETE, _group(program, 2))
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "group 2" in message
    client.write(update(DELETE, entry))
    _write(client, DELETE, _group(program, 2))
    _write(client, DELETE, _port_member(program, 1, 1))
    assert client.read(_group(program, 0)) == []


def test_watch_ports_are_kept_and_read_back(client: Client, program: Program) -> None:
    """As PI keeps them; with no port down (this switch has no port status) every member
    stays selected."""
    for member_id in (1, 2):
        _write(client, INSERT, _port_member(program, member_id, member_id))
    group = _group(program, 6, (1, 1), (2, 1))
    group.action_profile_group.members[0].watch_port = b"\x01"
    group.action_profile_group.members[1].watch = 2
    _write(client, INSERT, group)
    assert client.read(_group(program, 6)) == [group]
    bad = _group(program, 7, (1, 1))
    bad.action_profile_group.members[0].watch_port = b"\x02\x00"
    code, message = _error(client, INSERT, bad)
    assert code == grpc.StatusCode.OUT_OF_RANGE and "member 1 watch_port" in message
    entry = _entry(program, "IngressImpl.ecmp", ECMP_DST)
    entry.action.CopyFrom(_action_set(program, (1, 1)))
    with pytest.raises(grpc.RpcError) as info:  # the profile holds the client's members
        client.write(insert(entry))
    assert write_errors(info.value)[0][0] == grpc.StatusCode.INVALID_ARGUMENT


def test_a_one_shot_watch_port_reads_back(client: Client, program: Program) -> None:
    entry = _entry(program, "IngressImpl.ecmp", ECMP_DST)
    entry.action.CopyFrom(_action_set(program, (1, 1), (2, 1)))
    entry.action.action_profile_action_set.action_profile_actions[1].watch_port = b"\x02"
    client.write(insert(entry))
    [read] = client.read(p4r.Entity(table_entry=entry))
    assert read.table_entry.action == entry.action


def test_a_group_modify_without_max_size_keeps_it(client: Client, program: Program) -> None:
    for member_id in (1, 2, 3):
        _write(client, INSERT, _port_member(program, member_id, member_id))
    group = _group(program, 4, (1, 1))
    group.action_profile_group.max_size = 2
    _write(client, INSERT, group)
    # As PI: 0 (unset) leaves the INSERT's max_size, which still bounds the members.
    _write(client, MODIFY, _group(program, 4, (1, 1), (2, 1)))
    [read] = client.read(_group(program, 4))
    assert read.action_profile_group.max_size == 2
    assert [m.member_id for m in read.action_profile_group.members] == [1, 2]
    code, message = _error(client, MODIFY, _group(program, 4, (1, 1), (3, 2)))
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "sum to 3, above 2" in message
    changed = _group(program, 4, (1, 1))
    changed.action_profile_group.max_size = 3
    code, message = _error(client, MODIFY, changed)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "max_size cannot change" in message


def test_bad_members_groups_and_entries_are_refused_by_name(
    client: Client, program: Program
) -> None:
    _write(client, INSERT, _port_member(program, 1, 1))
    code, message = _error(client, INSERT, _port_member(program, 1, 2))
    assert code == grpc.StatusCode.ALREADY_EXISTS
    code, message = _error(client, INSERT, _group(program, 3, (1, 1), (99, 1)))
    assert code == grpc.StatusCode.NOT_FOUND and "member 99" in message
    code, message = _error(client, INSERT, _group(program, 3, (1, 0)))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "weight 0" in message
    for member_id in range(2, 6):
        _write(client, INSERT, _port_member(program, member_id, 2))
    code, message = _error(client, INSERT, _group(program, 3, *((m, 1) for m in range(1, 6))))
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "sum to 5, above 4" in message
    # A group's size is its members' weights summed: two members can overflow it.
    code, message = _error(client, INSERT, _group(program, 3, (1, 3), (2, 2)))
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "sum to 5, above 4" in message
    code, message = _error(
        client,
        INSERT,
        _member(program, "IngressImpl.ecmp_sel", 9, "IngressImpl.set_type", b"\x08\x00"),
    )
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "ecmp_sel" in message

    retag = "retag_profile"
    for member_id in (1, 2):
        _write(client, INSERT, _member(program, retag, member_id, "IngressImpl.set_type", b"\x01"))
    code, message = _error(
        client, INSERT, _member(program, retag, 3, "IngressImpl.set_type", b"\x01")
    )
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "full" in message
    group = _group(program, 4)
    group.action_profile_group.action_profile_id = program.id_of("action_profiles", retag)
    code, message = _error(client, INSERT, group)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "no selector" in message

    direct = _entry(program, "IngressImpl.ecmp", ECMP_DST)
    direct.action.action.action_id = program.action_id("IngressImpl.drop")
    with pytest.raises(grpc.RpcError) as info:
        client.write(insert(direct))
    [(code, message)] = write_errors(info.value)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "member or a group" in message
    spare = _member(program, "IngressImpl.spare_sel", 1, "IngressImpl.to_port", b"\x01")
    code, message = _error(client, INSERT, spare)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "spare_sel" in message
    missing = _entry(program, "IngressImpl.retag", RETAG_DST, action_profile_member_id=42)
    with pytest.raises(grpc.RpcError) as info:
        client.write(insert(missing))
    [(code, message)] = write_errors(info.value)
    assert code == grpc.StatusCode.NOT_FOUND and "member 42" in message


def _action_set(program: Program, *ports_weights: tuple[int, int]) -> p4r.TableAction:
    action = p4r.TableAction()
    action.action_profile_action_set.SetInParent()  # set even when empty
    for port, weight in ports_weights:
        item = action.action_profile_action_set.action_profile_actions.add(weight=weight)
        item.action.action_id = program.action_id("IngressImpl.to_port")
        item.action.params.add(param_id=1, value=bytes([port]))
    return action


def _random_entity(rng: random.Random, program: Program) -> p4r.Entity:
    """Mostly well-formed members, groups and entries, so that references build up; now
    and then an unknown id, a wrong action, a bad weight or size."""
    retag = "retag_profile"
    kind = rng.choice(["member", "group", "entry"])
    if kind == "member":
        if rng.random() < 0.5:
            entity = _port_member(program, rng.randrange(4), rng.randrange(1, 4))
        else:
            entity = _member(program, retag, rng.randrange(4), "IngressImpl.set_type", b"\x08")
        member = entity.action_profile_member
        if rng.random() < 0.1:
            member.action_profile_id = rng.choice([0, rng.getrandbits(32)])
        if rng.random() < 0.1:
            member.action.action_id = rng.choice([a.preamble.id for a in program.p4info.actions])
        return entity
    if kind == "group":
        members = [(rng.randrange(5), rng.choice([1, 1, 1, 2, 0])) for _ in range(rng.randrange(5))]
        entity = _group(program, rng.randrange(3), *dict(members).items())
        group = entity.action_profile_group
        group.max_size = rng.choice([0, 0, 0, 2, 9, -1])
        if rng.random() < 0.1:
            group.action_profile_id = program.id_of("action_profiles", retag)
        return entity
    table, dst = rng.choice([("IngressImpl.ecmp", ECMP_DST), ("IngressImpl.retag", RETAG_DST)])
    entry = _entry(program, table, dst)
    target = rng.choice(["member", "member", "group", "group", "set", "action"])
    if target == "member":
        entry.action.action_profile_member_id = rng.randrange(4)
    elif target == "group":
        entry.action.action_profile_group_id = rng.randrange(3)
    elif target == "set":
        entry.action.CopyFrom(_action_set(program, *((p, rng.randrange(3)) for p in (1, 2))))
    else:
        entry.action.action.action_id = program.action_id("IngressImpl.drop")
    return p4r.Entity(table_entry=entry)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_members_groups_and_entries_get_a_status(
    client: Client, program: Program, dataplane: Any, seed: int
) -> None:
    """Every write and read gets a status naming the problem (never INTERNAL or an
    unexpected exception); the references stay consistent, so packets still pass."""
    rng = random.Random(seed)
    accepted = 0
    for _ in range(400):
        entity = _random_entity(rng, program)
        try:
            _write(client, rng.choice([INSERT, INSERT, MODIFY, DELETE]), entity)
            accepted += 1
        except grpc.RpcError as exc:
            [(code, message)] = write_errors(exc)
            assert code not in (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN), message
            assert message
        try:
            client.read(entity)
        except grpc.RpcError as exc:
            assert exc.code() not in (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN)
            assert exc.details()
        _send(dataplane, ECMP_DST, rng.randrange(8))
        _send(dataplane, RETAG_DST, 1)
    assert accepted >= 40  # enough writes got through to build references
    # Whatever was refused or accepted, deleting in reference order empties everything.
    for entry in client.read(p4r.Entity(table_entry=p4r.TableEntry())):
        client.write(update(DELETE, entry.table_entry))
    for group in client.read(p4r.Entity(action_profile_group=p4r.ActionProfileGroup())):
        _write(client, DELETE, group)
    for member in client.read(p4r.Entity(action_profile_member=p4r.ActionProfileMember())):
        _write(client, DELETE, member)
    assert client.read(p4r.Entity(action_profile_member=p4r.ActionProfileMember())) == []


def test_one_shot_action_sets_make_groups_of_their_own(
    client: Client, program: Program, dataplane: Any
) -> None:
    entry = _entry(program, "IngressImpl.ecmp", ECMP_DST)
    entry.action.CopyFrom(_action_set(program, (1, 1), (2, 2)))
    client.write(insert(entry))
    assert _ports(dataplane, range(6)) == [1, 2, 2, 1, 2, 2]
    [read] = client.read(p4r.Entity(table_entry=_entry(program, "IngressImpl.ecmp", ECMP_DST)))
    actions = read.table_entry.action.action_profile_action_set.action_profile_actions
    assert [(a.action.params[0].value, a.weight) for a in actions] == [(b"\x01", 1), (b"\x02", 2)]
    # Members and groups written by the client are hidden from one-shot ones, and may
    # not be mixed with them in one profile.
    assert client.read(_group(program, 0)) == []
    code, message = _error(client, INSERT, _port_member(program, 1, 1))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "one-shot" in message

    entry.action.CopyFrom(_action_set(program, (3, 1)))
    client.write(update(MODIFY, entry))
    assert _ports(dataplane, range(3)) == [3, 3, 3]
    client.write(update(DELETE, entry))
    _write(client, INSERT, _port_member(program, 1, 1))  # the profile is free again
    entry.action.CopyFrom(_action_set(program, (2, 1)))
    with pytest.raises(grpc.RpcError) as info:
        client.write(insert(entry))
    [(code, message)] = write_errors(info.value)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "mixing" in message


def test_bad_one_shot_action_sets_are_refused_by_name(client: Client, program: Program) -> None:
    cases = [
        ("IngressImpl.ecmp", ECMP_DST, _action_set(program, (1, 0)), "weight 0"),
        ("IngressImpl.ecmp", ECMP_DST, _action_set(program), "empty"),
        ("IngressImpl.retag", RETAG_DST, _action_set(program, (1, 1)), "no selector"),
    ]
    too_many = _action_set(program, *((port, 1) for port in range(1, 6)))
    cases.append(("IngressImpl.ecmp", ECMP_DST, too_many, "sum to 5, above 4"))
    too_heavy = _action_set(program, (1, 3), (2, 2))
    cases.append(("IngressImpl.ecmp", ECMP_DST, too_heavy, "sum to 5, above 4"))
    for table, dst, action, words in cases:
        entry = _entry(program, table, dst)
        entry.action.CopyFrom(action)
        with pytest.raises(grpc.RpcError) as info:
            client.write(insert(entry))
        [(code, message)] = write_errors(info.value)
        assert code != grpc.StatusCode.OK and words in message, message
    # Nothing was left behind: the profile takes members again.
    _write(client, INSERT, _port_member(program, 1, 1))
