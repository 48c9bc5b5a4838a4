"""`p4aqm switch` command line: simple_switch_grpc's flags and clear errors."""

from pathlib import Path

import pytest

from p4aqm.switch.cli import main, parse_args


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--no-p4", "-i", "1veth1"], "--interface '1veth1': expected PORT@IFACE"),
        (["--no-p4", "--interface", "x@veth1"], "--interface 'x@veth1': expected PORT@IFACE"),
        (["--no-p4", "-i", "1@"], "--interface '1@': expected PORT@IFACE"),
        (["--no-p4", "-i", "600@veth1"], "port 600 is not in 0..511"),
        (["--no-p4", "-i", "1@a", "-i", "1@b"], "port 1 is given twice"),
        (
            ["--no-p4", "--grpc-server-addr", "9559"],
            "--grpc-server-addr '9559': expected HOST:PORT",
        ),
        (["--no-p4", "--grpc-server-addr", "h:99999"], "expected HOST:PORT"),
        (["--no-p4", "--device-id", "x"], "--device-id: invalid int value: 'x'"),
        (["--no-p4", "--cpu-port", "1000"], "--cpu-port 1000: expected a port number 0..511"),
        (["--no-p4", "--", "--pcap", "dir"], "unrecognized arguments: --pcap"),
        (["--no-p4", "--bogus"], "unrecognized arguments: --bogus"),
        (["--no-p4", "prog.json"], "either a BMv2 JSON file or --no-p4"),
        (["--no-p4", "--", "--priority-queues", "9"], "--priority-queues 9: expected 1..8"),
        (["--no-p4", "--priority-queues", "0"], "--priority-queues 0: expected 1..8"),
        (["--no-p4", "--realtime-priority", "0"], "--realtime-priority 0: expected 1..99"),
        (["--no-p4", "--realtime-priority", "100"], "--realtime-priority 100: expected 1..99"),
    ],
)
def test_bad_flags(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("p4aqm switch: error: ")
    assert message in err
    assert "Traceback" not in err


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    flags = ("--interface", "--device-id", "--grpc-server-addr", "--cpu-port", "--no-p4")
    for flag in (*flags, "--priority-queues"):
        assert flag in out


def test_defaults() -> None:
    options = parse_args(["--no-p4"])
    assert (options.host, options.port) == ("127.0.0.1", 9559)
    assert options.device_id == 0 and options.interfaces == [] and options.cpu_port is None
    assert options.priority_queues == 1


def test_target_options_after_separator() -> None:
    options = parse_args(
        [
            "-i",
            "1@veth1",
            "--interface",
            "2@veth2",
            "--device-id",
            "3",
            "prog.json",
            "--",
            "--grpc-server-addr",
            "0.0.0.0:50001",
            "--cpu-port",
            "255",
            "--priority-queues",
            "8",
        ]
    )
    assert options.priority_queues == 8
    assert options.interfaces == [(1, "veth1"), (2, "veth2")]
    assert options.device_id == 3
    assert options.config == Path("prog.json")
    assert (options.host, options.port, options.cpu_port) == ("0.0.0.0", 50001, 255)


def test_ipv6_address() -> None:
    options = parse_args(["--no-p4", "--grpc-server-addr", "[::1]:9559"])
    assert (options.host, options.port) == ("::1", 9559)


def test_missing_interface(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--no-p4", "-i", "1@p4aqm-no-such0"]) == 1
    err = capsys.readouterr().err
    assert "no interface named 'p4aqm-no-such0'" in err
    assert "Traceback" not in err


def test_unreadable_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "missing.json")]) == 1
    assert "cannot read" in capsys.readouterr().err
