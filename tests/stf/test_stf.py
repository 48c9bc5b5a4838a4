"""STF tests run with `p4aqm stf`, and the runner's own behaviour on failing tests."""

import subprocess
import sys
from pathlib import Path

import pytest

from programs import P4SRC

STF_DIR = Path(__file__).resolve().parent


def p4aqm_stf(*args: str) -> subprocess.CompletedProcess[str]:
    p4aqm = str(Path(sys.executable).parent / "p4aqm")
    return subprocess.run([p4aqm, "stf", *args], capture_output=True, text=True, timeout=60)


def test_l3_forward_stf_passes() -> None:
    result = p4aqm_stf(str(STF_DIR / "l3_forward.stf"), "--p4", str(P4SRC / "l3_forward.p4"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PASS" in result.stdout and "4 packet(s) in, 2 out" in result.stdout


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        # A wrong byte in an expectation is reported with its line and nibble.
        (("3f11 64cf", "3f11 64ce"), "l3.stf:7: port 2: differs at nibble 51"),
        # Dropping a route sends the packet nowhere: port 2 then gets 0 packets.
        (("add ipv4_lpm hdr.ipv4", "# add ipv4_lpm hdr.ipv4"), "port 2: expected 1 packet(s)"),
        # `$` demands the exact length (without it, a shorter pattern is a prefix match).
        (("0a000209 $", "0a0002 $"), "packet is 34 bytes, expected exactly 33"),
    ],
)
def test_failing_stf_is_reported(tmp_path: Path, edit: tuple[str, str], message: str) -> None:
    old, new = edit
    text = (STF_DIR / "l3_forward.stf").read_text().replace(old, new, 1)
    stf = tmp_path / "l3.stf"
    stf.write_text(text)
    result = p4aqm_stf(str(stf), "--p4", str(P4SRC / "l3_forward.p4"))
    assert result.returncode == 1
    assert message in result.stderr, result.stderr
    assert "FAIL" in result.stdout


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("add nosuch_table k:1 a()", "l3.stf:1: error: no table 'nosuch_table'"),
        ("add ipv4_lpm dst_addr:0x0a000200/40 drop()", "prefix length must be 0..32"),
        ("add ipv4_lpm dst_addr:1 ipv4_forward(port:2)", "missing action argument(s): dst_mac"),
        ("setdefault ipv4_lpm nosuch()", "no action 'nosuch' in table MyIngress.ipv4_lpm"),
        ("packet 1 0x0g", "l3.stf:1: error: packet: packet data must be hex digits"),
        ("explode 1", "l3.stf:1: error: unknown STF command 'explode'"),
        ("check_counter c(1)", "l3.stf:1: error: no counter 'c'"),
        ("check_counter c(1) packets ~ 2", "expected COUNTER(INDEX) [packets|bytes OP VALUE]"),
        ("mirroring_add 5", "l3.stf:1: error: mirroring_add: expected SESSION PORT"),
        ("mc_node_associate 1 0", "multicast group 1 was not created"),
        ("register_write r 0 1", "no register 'r'"),
    ],
)
def test_bad_stf_gives_a_positioned_error(tmp_path: Path, line: str, message: str) -> None:
    stf = tmp_path / "l3.stf"
    stf.write_text(line + "\n")
    result = p4aqm_stf(str(stf), "--p4", str(P4SRC / "l3_forward.p4"))
    assert result.returncode == 1
    assert message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_odd_and_empty_packet_data_read_as_p4cs_runner_does(tmp_path: Path) -> None:
    # Digits go two by two, a last lone one making a byte of its own; a packet with no
    # data sends nothing. l3_forward drops what its table does not route.
    stf = tmp_path / "l3.stf"
    stf.write_text("packet 1 0\npacket 1\n")
    result = p4aqm_stf(str(stf), "--p4", str(P4SRC / "l3_forward.p4"))
    assert result.returncode == 0, result.stderr
    assert "1 packet(s) in, 0 out" in result.stdout
