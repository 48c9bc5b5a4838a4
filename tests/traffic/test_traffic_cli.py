"""Bad input on the generators' command lines: `error: ...` naming the flag, exit status 2."""

from collections.abc import Callable, Sequence

import pytest

from p4aqm.traffic import cbr
from p4aqm.traffic.cli import run
from p4aqm.traffic.web import client, server

CLIENT = ["--users", "10", "--servers", "127.0.0.1:8080", "--duration-s", "1",
          "--records", "REC", "--host-name", "h1", "--seed", "1"]  # fmt: skip


def client_with(*changes: str) -> list[str]:
    """The client's arguments with flag/value pairs replaced or added."""
    args = list(CLIENT)
    for flag, value in zip(changes[::2], changes[1::2], strict=True):
        if flag in args:
            args[args.index(flag) + 1] = value
        else:
            args += [flag, value]
    return args


CASES = [
    (client.main, client_with("--users", "-5"), "--users: Input should be greater than 0"),
    (client.main, client_with("--users", "many"), "argument --users: invalid int value"),
    (client.main, CLIENT[:-2], "the following arguments are required: --seed"),
    (client.main, client_with("--servers", "127.0.0.1"), "--servers: '127.0.0.1' is not HOST:PORT"),
    (client.main, client_with("--servers", "no-such-host.invalid:80"),
     "--servers: unknown host name 'no-such-host.invalid'"),
    (client.main, client_with("--servers", ","), "--servers: no HOST:PORT given"),
    (client.main, client_with("--records", "run.txt"), "--records: run.txt: records go to"),
    (client.main, client_with("--think-time-cap-s", "0"), "--think-time-cap-s: Input should be"),
    (client.main, client_with("--think-time-policy", "cut"), "argument --think-time-policy"),
    (client.main, client_with("--max-parallel", "0"), "--max-parallel: Input should be"),
    (server.main, ["--listen", "127.0.0.1:70000"], "--listen: port 70000 in"),
    (server.main, ["--listen", "203.0.113.1:8080"], "--listen 203.0.113.1:8080: cannot listen"),
    (cbr.main, ["send", "--dest", "127.0.0.1:9", "--duration-s", "1", "--rate-bps", "-1"],
     "--rate-bps: Input should be greater than 0"),
    (cbr.main, ["send", "--dest", "127.0.0.1:9", "--duration-s", "1", "--payload-bytes", "10"],
     "--payload-bytes: Input should be greater than or equal to 20"),
    (cbr.main, ["send", "--dest", "127.0.0.1:9", "--duration-s", "1", "--dscp", "64"],
     "--dscp: Input should be less than or equal to 63"),
    (cbr.main, ["send", "--dest", "127.0.0.1:0", "--duration-s", "1"], "--dest: port 0"),
    (cbr.main, ["recv", "--listen", "127.0.0.1:0", "--records", "/nonexistent/r.parquet"],
     "--records: /nonexistent/r.parquet: directory /nonexistent does not exist"),
    (cbr.main, ["recv", "--listen", "127.0.0.1:0", "--records", "r.csv", "--duration-s", "0"],
     "--duration-s: 0.0 is not positive"),
    (cbr.main, ["jump"], "argument command: invalid choice: 'jump'"),
    (cbr.main, ["send", "--dest", "127.0.0.1:9", "--duration-s", "-1"],
     "--duration-s: Input should be greater than 0"),
]  # fmt: skip


@pytest.mark.parametrize(("main", "argv", "message"), CASES)
def test_bad_input_exits_2_naming_the_flag(
    main: Callable[[Sequence[str] | None], int],
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    argv = [str(tmp_path_factory.mktemp("cli") / "r.parquet") if a == "REC" else a for a in argv]
    with pytest.raises(SystemExit) as exit_:
        raise SystemExit(run(main, argv))
    assert exit_.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("error: ") and err.count("\n") == 1
    assert message in err, err
