"""`log_msg` of a whole header (p4c's issue2201-bmv2 passes `{hdr.h}`): the switch loads
it, as BMv2 does, and the trace shows the header in BMv2's form, its validity first."""

from pathlib import Path

import pytest

from p4aqm.switch._dataplane import Dataplane
from programs import compile_program

PROGRAM = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<16> b; }
header g_t { bit<8> c; }
struct hs { h_t h; g_t g; }
struct meta_t { }
parser P(packet_in pk, out hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control I(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        log_msg("h={} g={} a={}", {hdr.h, hdr.g, hdr.h.a});
        sm.egress_spec = 1;
    }
}
control E(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control V(inout hs hdr, inout meta_t m) { apply { } }
control C(inout hs hdr, inout meta_t m) { apply { } }
control D(packet_out pk, in hs hdr) { apply { pk.emit(hdr); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def test_a_header_is_logged_with_its_fields(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "log_header.p4"
    source.write_text(PROGRAM)
    program = compile_program(source, tmp_path)
    dp = Dataplane()
    dp.add_memory_port(1)
    dp.load_pipeline(program.json_path.read_bytes())
    dp.set_trace(True)
    dp.inject(0, bytes.fromhex("050102ff"))
    dp.set_trace(False)
    # The packet goes on as before: the log only reports.
    assert dp.take_output() == [(1, bytes.fromhex("050102ff"))]
    err = capfd.readouterr().err
    assert "{'$valid$': 1, 'a': 5, 'b': 258}" in err
    # g was never extracted: invalid, its field 0.
    assert "{'$valid$': 0, 'c': 0}" in err
