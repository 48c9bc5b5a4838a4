"""The controller's config: valid files load, and every mistake names its field."""

import re
from pathlib import Path

import pytest
import yaml

from p4aqm.controller.config import ConfigError, load_config
from p4aqm.controller.port_control import QUEUE_HEADROOM_PKTS, aqm_depths, port_updates

MINIMAL_P4INFO = 'actions { preamble { id: 21257015 name: "NoAction" alias: "NoAction" } }\n'

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "controller" / "l3_forward.yaml"


@pytest.fixture
def pipeline_files(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "p.txtpb").write_text(MINIMAL_P4INFO)
    (tmp_path / "p.json").write_text("{}")
    return {"p4info": "p.txtpb", "bmv2_json": "p.json"}


def write(tmp_path: Path, config: object) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def example_with(pipeline_files: dict[str, str]) -> dict:
    config = yaml.safe_load(EXAMPLE.read_text())
    config["pipeline"] = pipeline_files
    return config


def test_example_loads_with_paths_relative_to_the_file(
    tmp_path: Path, pipeline_files: dict[str, str]
) -> None:
    config = load_config(write(tmp_path, example_with(pipeline_files)))
    assert config.pipeline.p4info == tmp_path / "p.txtpb"
    assert [r.port for r in config.routes] == [1, 2]
    assert str(config.routes[1].prefix) == "10.0.2.0/24"


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda c: c["routes"][1].update(port=511), "routes[1].port: Input should be less"),
        (lambda c: c["routes"][0].update(prefix="10.0.1.1/24"), "routes[0].prefix:"),
        (lambda c: c["routes"][0].update(dst_mac="00:00:00:01"), "routes[0].dst_mac:"),
        (lambda c: c["switch"].update(device_id=-1), "switch.device_id:"),
        (lambda c: c.update(qdisc="red"), "qdisc: Extra inputs are not permitted"),
        (lambda c: c["pipeline"].update(p4info="missing.txtpb"), "pipeline.p4info: no such file"),
        (lambda c: c.pop("pipeline"), "pipeline: Field required"),
    ],
)
def test_errors_name_the_field(
    tmp_path: Path, pipeline_files: dict[str, str], mutate: object, message: str
) -> None:
    config = example_with(pipeline_files)
    mutate(config)  # type: ignore[operator]
    path = write(tmp_path, config)
    with pytest.raises(ConfigError) as excinfo:
        load_config(path)
    assert str(excinfo.value).startswith(f"{path}: ")
    assert message in str(excinfo.value)


@pytest.mark.parametrize(
    ("file", "content", "message"),
    [
        ("p.txtpb", "\n", "pipeline.p4info: .* is empty"),
        ("p.txtpb", "tables {", "pipeline.p4info: not a P4Info text protobuf"),
        ("p.json", "{not json", "pipeline.bmv2_json: not a BMv2 JSON file"),
    ],
)
def test_unusable_pipeline_files(
    tmp_path: Path, pipeline_files: dict[str, str], file: str, content: str, message: str
) -> None:
    path = write(tmp_path, example_with(pipeline_files))
    (tmp_path / file).write_text(content)
    with pytest.raises(ConfigError, match=message):
        load_config(path)


def test_yaml_syntax_error_is_positioned(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("switch:\n  grpc_addr: [unclosed\n")
    with pytest.raises(ConfigError, match=rf"^{path}:3:1: invalid YAML"):
        load_config(path)


def test_missing_file_is_reported(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read config"):
        load_config(tmp_path / "nope.yaml")


def test_ports_become_gnmi_updates(tmp_path: Path, pipeline_files: dict[str, str]) -> None:
    config = example_with(pipeline_files)
    config["ports"] = {
        2: {"queue": {"rate_bps": 10_000_000, "depth_pkts": 120}},
        1: {"link": {"delay_us": 40_000}},
    }
    loaded = load_config(write(tmp_path, config))
    updates = [(f"/{path}", value) for path, value in port_updates(loaded.ports)]
    assert updates == [
        ("/p4aqm/ports/port[id=1]/link/config/delay-us", 40_000),
        ("/p4aqm/ports/port[id=2]/queues/queue[id=*]/config/rate-bps", 10_000_000),
        ("/p4aqm/ports/port[id=2]/queues/queue[id=*]/config/depth-pkts", 120),
    ]


@pytest.mark.parametrize(
    ("ports", "message"),
    [
        ({2: {"queue": {"rate_bps": 1, "rate_pps": 1}}}, "ports[2].queue: Value error, give"),
        ({1: {"link": {"delay_us": -1}}}, "ports[1].link.delay_us: Input should be greater"),
        ({600: {}}, "ports[600] (key): Input should be less than or equal to 510"),
    ],
)
def test_bad_ports(
    tmp_path: Path, pipeline_files: dict[str, str], ports: dict, message: str
) -> None:
    config = example_with(pipeline_files)
    config["ports"] = ports
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_config(write(tmp_path, config))


def test_aqm_ports_get_a_queue_deeper_than_their_limit(
    tmp_path: Path, pipeline_files: dict[str, str]
) -> None:
    config = example_with(pipeline_files)
    red = {"discipline": "red", "min_th": 5, "max_th": 15, "max_p": 0.1, "limit_pkts": 100}
    config["ports"] = {
        2: {"aqm": red},
        3: {"aqm": red, "queue": {"rate_bps": 10_000_000}},
        4: {"aqm": red, "queue": {"depth_pkts": 500}},
        5: {"queue": {"rate_bps": 10_000_000}},
    }
    loaded = load_config(write(tmp_path, config))
    assert aqm_depths(loaded.ports) == {2: 100 + QUEUE_HEADROOM_PKTS, 3: 100 + QUEUE_HEADROOM_PKTS}


def test_a_queue_no_deeper_than_the_aqm_limit_is_an_error(
    tmp_path: Path, pipeline_files: dict[str, str]
) -> None:
    config = example_with(pipeline_files)
    red = {"discipline": "red", "min_th": 5, "max_th": 15, "max_p": 0.1, "limit_pkts": 100}
    config["ports"] = {2: {"aqm": red, "queue": {"depth_pkts": 100}}}
    with pytest.raises(ConfigError, match=r"ports\[2\]: Value error, queue.depth_pkts \(100\)"):
        load_config(write(tmp_path, config))
