//! Resubmit, recirculate and clone with a field list in both spellings the
//! loader accepts: p4c's (`resubmit`, `recirculate`, the primitives BMv2 1.15
//! knows, with a 32-bit field list id) and the `*_preserving_field_list`
//! names our compiler wrote before. The fixture is in the old spelling (see
//! tests/dataplane/fixtures/passes.p4 for what each op does).

use _dataplane::pre::CloneSession;
use _dataplane::switch::Switch;
use serde_json::Value;

const OLD_FORM: &[u8] = include_bytes!("../../tests/dataplane/fixtures/passes.json");

/// The fixture as p4c 1.2.4 writes it: the primitives renamed, their field
/// list id spelled as a bit<32> constant.
fn p4c_form() -> Vec<u8> {
    let mut program: Value = serde_json::from_slice(OLD_FORM).unwrap();
    let mut renamed = 0;
    for action in program["actions"].as_array_mut().unwrap() {
        for prim in action["primitives"].as_array_mut().unwrap() {
            let new = match prim["op"].as_str().unwrap() {
                "resubmit_preserving_field_list" => "resubmit",
                "recirculate_preserving_field_list" => "recirculate",
                _ => continue,
            };
            prim["op"] = new.into();
            prim["parameters"][0]["value"] = "0x00000001".into();
            renamed += 1;
        }
    }
    assert!(renamed >= 2, "the fixture resubmits and recirculates");
    program.to_string().into_bytes()
}

/// What leaves the switch for a packet of `op`, with clone session 9 to
/// port 3.
fn run(json: &[u8], op: u8) -> Vec<(u32, Vec<u8>)> {
    let sw = Switch::new(0);
    for p in 1..=3 {
        sw.add_memory_port(p).unwrap();
    }
    sw.load_pipeline(json).unwrap();
    let session = CloneSession {
        replicas: vec![(3, 0)],
        class_of_service: 0,
        packet_length_bytes: 0,
    };
    sw.clone_session_set(9, session).unwrap();
    let mut pkt = vec![op, 0, 0xff, 0xff, 0xff];
    pkt.extend_from_slice(b"payload");
    sw.inject(1, &pkt).unwrap();
    let mut out = sw.take_output();
    out.sort();
    out
}

#[test]
fn both_spellings_load_and_behave_the_same() {
    let p4c = p4c_form();
    for op in [1, 2, 3, 5] {
        assert_eq!(run(&p4c, op), run(OLD_FORM, op), "op {op}");
    }
}

#[test]
fn p4c_spelling_resubmits_recirculates_and_clones_with_the_list() {
    let p4c = p4c_form();
    // op, n (egress passes), instance type ingress saw, kept, lost.
    let fields = |out: &[(u32, Vec<u8>)], i: usize| (out[i].0, out[i].1[..5].to_vec());
    let resubmitted = run(&p4c, 1);
    assert_eq!(fields(&resubmitted, 0), (2, vec![1, 1, 6, 7, 0]));
    let recirculated = run(&p4c, 2);
    assert_eq!(fields(&recirculated, 0), (2, vec![2, 2, 4, 3, 0]));
    let cloned = run(&p4c, 3);
    assert_eq!(cloned.len(), 2);
    assert_eq!((cloned[1].0, cloned[1].1[2], cloned[1].1[3]), (3, 1, 5));
}
