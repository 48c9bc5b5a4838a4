"""The tuning daemon's rule file: read into rules, bad fields and WAD's untunable knobs
named with their file and line, and a rule's layout as the sock_ops program reads it."""

import struct
import subprocess
import sys
from pathlib import Path

import pytest

from p4aqm.tuning.bpf import RULE, SET_BITS, encode
from p4aqm.tuning.rules import RulesError, load_rules

GOOD = """rules:
  - name: ornl-psc
    match: {remote_addr: 10.0.2.0/24, remote_port: 5201}
    set: {sndbuf_bytes: 8000000, rcvbuf_bytes: 8000000, congestion_control: reno}
  - name: everything-else
    set: {initcwnd_pkts: 10, ecn: true}
"""
P4AQM = str(Path(sys.executable).parent / "p4aqm")


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "wad.yaml"
    path.write_text(text)
    return path


def test_rules_in_order_with_their_matches(tmp_path: Path) -> None:
    rules = load_rules(write(tmp_path, GOOD)).rules
    assert [r.name for r in rules] == ["ornl-psc", "everything-else"]
    assert str(rules[0].match.remote_addr) == "10.0.2.0/24"
    assert str(rules[1].match.remote_addr) == "0.0.0.0/0" and rules[1].match.remote_port == 0


@pytest.mark.parametrize(
    ("change", "line", "named"),
    [
        (("remote_port: 5201", "remote_port: 70000"), 3, "rules.0.match.remote_port"),
        (("10.0.2.0/24", "10.0.2.1/24"), 3, "rules.0.match.remote_addr"),
        (("sndbuf_bytes: 8000000", "sndbuf_bytes: 10"), 4, "rules.0.set.sndbuf_bytes"),
        (("congestion_control: reno", "congestion_control: 're no'"), 4, "congestion_control"),
        (("initcwnd_pkts: 10", "initcwnd_pkts: 10, wadai: 0"), 6, "rules.1.set.wadai"),
        (("initcwnd_pkts: 10", "initcwnd_pkts: 10, wadmd: 1"), 6, "rules.1.set.wadmd"),
        # wadai and wadmd make a congestion control of their own: no other beside them.
        (("rcvbuf_bytes: 8000000", "wadai: 6"), 4, "congestion_control: give none with wadai"),
        (("ecn: true", "ecn: false"), 6, "rules.1.set.ecn"),
        (("ecn: true", "bogus: 1"), 6, "rules.1.set.bogus"),
    ],
)
def test_bad_rules_name_file_line_and_field(
    tmp_path: Path, change: tuple[str, str], line: int, named: str
) -> None:
    path = write(tmp_path, GOOD.replace(*change))
    with pytest.raises(RulesError) as error:
        load_rules(path)
    assert f"{path}:{line}" in str(error.value) and named in str(error.value), error.value


def test_wads_untunable_knobs_say_why(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("initcwnd_pkts: 10", "maxssth: 100"))
    with pytest.raises(RulesError, match="maxssth: cannot be tuned per connection"):
        load_rules(path)


def test_wads_increase_and_decrease_default_to_renos(tmp_path: Path) -> None:
    text = GOOD.replace("initcwnd_pkts: 10", "initcwnd_pkts: 10, wadai: 6")
    rules = load_rules(write(tmp_path, text)).rules
    assert rules[1].set.aimd == (6, 0.5) and rules[0].set.aimd is None
    text = GOOD.replace("initcwnd_pkts: 10", "initcwnd_pkts: 10, wadmd: 0.3")
    assert load_rules(write(tmp_path, text)).rules[1].set.aimd == (1, 0.3)


def test_the_cli_checks_a_file_and_names_a_bad_one(tmp_path: Path) -> None:
    good = subprocess.run([P4AQM, "wad", str(write(tmp_path, GOOD)), "--check"],
                          capture_output=True, text=True)  # fmt: skip
    assert good.returncode == 0 and "2 rules" in good.stdout, good.stderr
    bad = write(tmp_path, GOOD.replace("remote_port: 5201", "remote_port: x"))
    done = subprocess.run([P4AQM, "wad", str(bad), "--check"], capture_output=True, text=True)
    assert done.returncode == 2 and f"{bad}:3" in done.stderr and "Traceback" not in done.stderr


def test_a_rule_as_the_program_reads_it(tmp_path: Path) -> None:
    rule = load_rules(write(tmp_path, GOOD)).rules[0]
    fields = RULE.unpack(encode(rule))
    assert RULE.size == 13 * 4 + 16  # struct rule in sockops.bpf.c
    assert fields[2] == bytes([10, 0, 2, 0]) and fields[3] == bytes([255, 255, 255, 0])
    assert fields[0] == fields[1] == bytes(4)  # any local address
    assert fields[4:6] == (0, 5201)
    assert (
        fields[6]
        == SET_BITS["sndbuf_bytes"] | SET_BITS["rcvbuf_bytes"] | SET_BITS["congestion_control"]
    )
    assert fields[7:9] == (8_000_000, 8_000_000)
    assert fields[-1].rstrip(b"\0") == b"reno"
    assert struct.calcsize("=13I16s") == RULE.size


def test_a_rule_with_wadai_asks_for_its_own_congestion_control(tmp_path: Path) -> None:
    text = GOOD.replace("initcwnd_pkts: 10", "wadai: 6, wadmd: 0.3")
    rule = load_rules(write(tmp_path, text)).rules[1]
    fields = RULE.unpack(encode(rule, "wad123_0"))
    assert fields[6] == SET_BITS["congestion_control"] | SET_BITS["ecn"]
    assert fields[-1].rstrip(b"\0") == b"wad123_0"
