"""The two forms of ForwardingPipelineConfig.p4_device_config that BMv2 clients send.

- The BMv2 JSON itself, as simple_switch_grpc takes it today.
- PI's `p4.tmp.P4DeviceConfig` (PI's proto/p4/tmp/p4config.proto), serialized, with the
  JSON in `device_data`. The P4 tutorials' `Bmv2SwitchConnection.buildDeviceConfig` and
  older PI tools send this; PI still accepts it.

They are told apart by their first byte: JSON text starts (after JSON whitespace) with
`{`, a serialized P4DeviceConfig with the tag of one of its fields (0x08 reassign, 0x12
extras, 0x1a device_data), never whitespace or `{`. Whatever is not JSON is decoded as a
P4DeviceConfig, so that each mistake gets a message that names it.
"""

from dataclasses import dataclass

from google.protobuf import descriptor_pb2, descriptor_pool, message, message_factory

from p4aqm.switch.runtime.errors import invalid

_JSON_WHITESPACE = b" \t\r\n"


@dataclass(frozen=True)
class DeviceConfig:
    bmv2_json: bytes
    # What an error about the JSON calls it: the field, or the P4DeviceConfig's
    # device_data ("<what> is not BMv2 JSON: ...").
    what: str


def device_config(p4_device_config: bytes) -> DeviceConfig:
    """The BMv2 JSON in `p4_device_config`, raw or wrapped; INVALID_ARGUMENT if it is
    neither. The JSON itself is checked by whoever parses it."""
    if not p4_device_config:
        raise invalid("ForwardingPipelineConfig has no p4_device_config (BMv2 JSON)")
    if p4_device_config.lstrip(_JSON_WHITESPACE).startswith(b"{"):
        return DeviceConfig(p4_device_config, "p4_device_config")
    wrapped = _P4DeviceConfig()
    try:
        wrapped.ParseFromString(p4_device_config)
    except message.DecodeError:
        # protobuf's own message says no more than "Error parsing message".
        raise invalid(
            "p4_device_config is neither BMv2 JSON (a JSON object) nor a serialized "
            "p4.tmp.P4DeviceConfig (it does not decode as protobuf: truncated or not "
            f"protobuf); {len(p4_device_config)} bytes, starting {p4_device_config[:8].hex()}"
        ) from None
    # reassign and extras are PI's options for assigning a device, which this switch
    # does not need; like PI, it takes the config whatever they say.
    data: bytes = wrapped.device_data  # type: ignore[attr-defined]
    if not data:
        raise invalid(
            "p4_device_config: a P4DeviceConfig with no device_data (the BMv2 JSON goes there)"
        )
    return DeviceConfig(data, "p4_device_config: a P4DeviceConfig whose device_data")


def _p4_device_config_class() -> type[message.Message]:
    """PI's P4DeviceConfig, built from its descriptor.

    No maintained package ships the generated class (the p4runtime package has p4.v1 and
    p4.config.v1 only; PI and the tutorials generate it from PI's source), and three
    fields do not justify a protoc step. The private pool keeps it apart from a
    p4config_pb2 that a client library may register in the same process.
    """
    field = descriptor_pb2.FieldDescriptorProto
    file = descriptor_pb2.FileDescriptorProto(
        name="p4/tmp/p4config.proto", package="p4.tmp", syntax="proto3"
    )
    config = file.message_type.add(name="P4DeviceConfig")
    extras = config.nested_type.add(name="Extras")
    entry = extras.nested_type.add(name="KvEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, type=field.TYPE_STRING, label=field.LABEL_OPTIONAL)
    entry.field.add(name="value", number=2, type=field.TYPE_STRING, label=field.LABEL_OPTIONAL)
    extras.field.add(
        name="kv",
        number=1,
        type=field.TYPE_MESSAGE,
        label=field.LABEL_REPEATED,
        type_name=".p4.tmp.P4DeviceConfig.Extras.KvEntry",
    )
    config.field.add(name="reassign", number=1, type=field.TYPE_BOOL, label=field.LABEL_OPTIONAL)
    config.field.add(
        name="extras",
        number=2,
        type=field.TYPE_MESSAGE,
        label=field.LABEL_OPTIONAL,
        type_name=".p4.tmp.P4DeviceConfig.Extras",
    )
    config.field.add(
        name="device_data", number=3, type=field.TYPE_BYTES, label=field.LABEL_OPTIONAL
    )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("p4.tmp.P4DeviceConfig"))


_P4DeviceConfig = _p4_device_config_class()
