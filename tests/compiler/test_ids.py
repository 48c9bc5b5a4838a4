"""p4c's P4Info ID scheme (REFERENCE.md section 2)."""

from p4aqm.compiler.ids import Prefix, assign_ids, jenkins_one_at_a_time


def test_check_values_from_p4c() -> None:
    assert assign_ids(Prefix.TABLE, ["MyIngress.ingress_tbl"]) == {
        "MyIngress.ingress_tbl": 46478332
    }
    actions = assign_ids(Prefix.ACTION, ["NoAction", "MyIngress.drop"])
    assert actions == {"MyIngress.drop": 25652968, "NoAction": 21257015}


def test_prefix_is_the_top_byte() -> None:
    ident = assign_ids(Prefix.REGISTER, ["MyEgress.qlen"])["MyEgress.qlen"]
    assert ident >> 24 == 0x16
    assert ident & 0xFFFFFF == jenkins_one_at_a_time(b"MyEgress.qlen") & 0xFFFFFF


def test_explicit_ids_are_reserved_first_and_collisions_move_on() -> None:
    natural = jenkins_one_at_a_time(b"b") & 0xFFFFFF
    ids = assign_ids(Prefix.ACTION, ["a", "b"], {"a": natural})
    assert ids["a"] == (0x01 << 24) | natural
    assert ids["b"] == (0x01 << 24) | (natural + 1)
