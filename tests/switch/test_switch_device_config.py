"""p4_device_config in both forms BMv2 clients send: the BMv2 JSON itself, or PI's
p4.tmp.P4DeviceConfig with the JSON in device_data (the P4 tutorials' helper library)."""

from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from finsy.proto import p4r
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from switch_helpers import ROUTE_PORT, Client, Program, insert, route_entry

Action = p4r.SetForwardingPipelineConfigRequest
GetType = p4r.GetForwardingPipelineConfigRequest

# The protobuf wire format's types: a varint, or length-delimited bytes.
VARINT, LEN = 0, 2


def _key(number: int, wire_type: int) -> bytes:
    return _varint(number << 3 | wire_type)


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _bytes_field(number: int, data: bytes) -> bytes:
    return _key(number, LEN) + _varint(len(data)) + data


def p4_device_config(
    device_data: bytes, reassign: bool = True, extras: dict[str, str] | None = None
) -> bytes:
    """A serialized PI P4DeviceConfig, as the tutorials' Bmv2SwitchConnection sends it
    (buildDeviceConfig(...).SerializeToString(), with reassign = True).

    PI's proto/p4/tmp/p4config.proto:
        message P4DeviceConfig {
          message Extras { map<string, string> kv = 1; }
          bool reassign = 1; Extras extras = 2; bytes device_data = 3;
        }
    Encoded here by hand, field by field in number order as protobuf does, so that the
    test does not share the server's decoder.
    """
    out = b""
    if reassign:
        out += _key(1, VARINT) + _varint(1)
    if extras:
        # A map field is a repeated entry message {key = 1; value = 2}.
        kv = b"".join(
            _bytes_field(1, _bytes_field(1, k.encode()) + _bytes_field(2, v.encode()))
            for k, v in extras.items()
        )
        out += _bytes_field(2, kv)
    if device_data:
        out += _bytes_field(3, device_data)
    return out


@pytest.fixture(scope="session")
def l3(l3_program: Any) -> Program:
    return Program.load(l3_program.p4info_path, l3_program.json_path)


@pytest.fixture
def client(server_port: int) -> Iterator[Client]:
    """A client that is primary (election id 10) but has pushed no pipeline."""
    c = Client(server_port, election_id=10)
    c.become_primary()
    yield c
    c.close()


def _config(l3: Program, device_config: bytes) -> p4r.ForwardingPipelineConfig:
    config = p4r.ForwardingPipelineConfig(p4info=l3.p4info, p4_device_config=device_config)
    config.cookie.cookie = 7
    return config


def _forward(dataplane: Any, dst: str) -> list[int]:
    frame = (
        Ether(dst="00:00:00:00:00:01", src="00:00:00:00:00:99")
        / IP(src="10.0.0.1", dst=dst)
        / UDP(sport=1234, dport=5678)
    )
    dataplane.take_output()
    dataplane.inject(1, bytes(frame))
    return [port for port, _ in dataplane.take_output()]


def test_the_wrapped_form_is_the_tutorials_encoding(l3: Program) -> None:
    """The hand encoding is what protobuf writes for these fields (a known prefix)."""
    wrapped = p4_device_config(b"{}")
    assert wrapped == b"\x08\x01\x1a\x02{}"
    assert p4_device_config(l3.device_config).endswith(l3.device_config)


@pytest.mark.parametrize(
    "wrap",
    [
        pytest.param(lambda json: p4_device_config(json), id="tutorials"),
        pytest.param(
            lambda json: p4_device_config(json, reassign=False, extras={"port": "9090"}),
            id="extras",
        ),
        pytest.param(lambda json: b"\n  " + json, id="raw-json-after-whitespace"),
    ],
)
def test_push_forward_and_get_back(client: Client, l3: Program, dataplane: Any, wrap: Any) -> None:
    device_config = wrap(l3.device_config)
    client.set_pipeline(_config(l3, device_config))

    client.write(insert(route_entry(l3)))
    [read] = client.read(p4r.Entity(table_entry=p4r.TableEntry()))
    assert read.table_entry.match == route_entry(l3).match
    assert _forward(dataplane, "10.0.1.5") == [ROUTE_PORT]

    # Get returns the config as it was sent, wrapper and all, as PI does.
    everything = client.get_pipeline(GetType.ALL)
    assert everything.p4_device_config == device_config
    assert everything.p4info == l3.p4info and everything.cookie.cookie == 7
    device = client.get_pipeline(GetType.DEVICE_CONFIG_AND_COOKIE)
    assert device.p4_device_config == device_config


def test_verify_save_commit_with_the_wrapped_form(
    client: Client, l3: Program, dataplane: Any
) -> None:
    device_config = p4_device_config(l3.device_config)
    client.set_pipeline(_config(l3, device_config), Action.VERIFY_AND_SAVE)
    client.set_pipeline(None, Action.COMMIT)
    client.write(insert(route_entry(l3)))
    assert _forward(dataplane, "10.0.1.5") == [ROUTE_PORT]
    assert client.get_pipeline(GetType.ALL).p4_device_config == device_config


def _truncated(l3: Program) -> bytes:
    wrapped = p4_device_config(l3.device_config)
    return wrapped[: len(wrapped) // 2]


@pytest.mark.parametrize(
    ("device_config", "message"),
    [
        pytest.param(
            lambda l3: p4_device_config(b""),
            "p4_device_config: a P4DeviceConfig with no device_data",
            id="wrapped-empty-device-data",
        ),
        pytest.param(
            lambda l3: p4_device_config(b"\x00\xffgarbage"),
            "p4_device_config: a P4DeviceConfig whose device_data is not BMv2 JSON",
            id="wrapped-garbage",
        ),
        pytest.param(
            lambda l3: p4_device_config(b"[1, 2]"),
            "a P4DeviceConfig whose device_data is not BMv2 JSON: the top level is not an object",
            id="wrapped-json-array",
        ),
        pytest.param(
            _truncated,
            "p4_device_config is neither BMv2 JSON (a JSON object) nor a serialized "
            "p4.tmp.P4DeviceConfig",
            id="truncated-protobuf",
        ),
        pytest.param(
            lambda l3: b"\xff\xfe\xfd not protobuf",
            "p4_device_config is neither BMv2 JSON",
            id="not-protobuf",
        ),
        pytest.param(
            lambda l3: b" {not json",
            "p4_device_config is not BMv2 JSON",
            id="raw-bad-json",
        ),
    ],
)
def test_bad_device_configs(client: Client, l3: Program, device_config: Any, message: str) -> None:
    with pytest.raises(grpc.RpcError) as info:
        client.set_pipeline(_config(l3, device_config(l3)))
    error = info.value
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error.details()
    assert message in error.details()
    assert "Traceback" not in error.details()
    # Nothing was committed.
    with pytest.raises(grpc.RpcError) as info:
        client.get_pipeline(GetType.ALL)
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
