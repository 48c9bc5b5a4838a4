//! The switch end to end on the l3_forward fixture, without Python.

use _dataplane::error::ApiError;
use _dataplane::pipeline::checksum::csum16;
use _dataplane::switch::{ApiKey, Switch};

const FIXTURE: &[u8] = include_bytes!("../../tests/dataplane/fixtures/l3_forward.json");

fn ipv4_packet(dst: [u8; 4], ttl: u8) -> Vec<u8> {
    let mut p = vec![0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0x08, 0x00];
    let mut ip = vec![0x45, 0, 0, 24, 0, 1, 0, 0, ttl, 17, 0, 0, 10, 0, 1, 1];
    ip.extend_from_slice(&dst);
    let c = csum16(&ip);
    ip[10..12].copy_from_slice(&c.to_be_bytes());
    p.extend_from_slice(&ip);
    p.extend_from_slice(b"data");
    p
}

fn switch() -> Switch {
    let sw = Switch::new(0);
    for p in 1..=3 {
        sw.add_memory_port(p).unwrap();
    }
    sw.load_pipeline(FIXTURE).unwrap();
    sw
}

fn route(sw: &Switch, prefix: [u8; 4], len: u32, port: u8) -> u64 {
    sw.table_add(
        "MyIngress.ipv4_lpm",
        &[ApiKey::Lpm(prefix.to_vec(), len)],
        "MyIngress.ipv4_forward",
        &[vec![2; 6], vec![1; 6], vec![port]],
        0,
    )
    .unwrap()
}

#[test]
fn forwards_with_new_macs_ttl_and_checksum() {
    let sw = switch();
    route(&sw, [10, 0, 2, 0], 24, 2);
    sw.inject(1, &ipv4_packet([10, 0, 2, 2], 64)).unwrap();
    let out = sw.take_output();
    assert_eq!(out.len(), 1);
    let (port, pkt) = &out[0];
    assert_eq!(*port, 2);
    assert_eq!(&pkt[0..6], &[2; 6]);
    assert_eq!(&pkt[6..12], &[1; 6]);
    assert_eq!(pkt[14 + 8], 63);
    assert_eq!(csum16(&pkt[14..34]), 0, "IPv4 header checksum must verify");
    assert_eq!(&pkt[34..], b"data");
}

#[test]
fn misses_and_short_packets_are_dropped() {
    let sw = switch();
    sw.inject(1, &ipv4_packet([10, 0, 2, 2], 64)).unwrap();
    route(&sw, [0, 0, 0, 0], 0, 2);
    sw.inject(1, &ipv4_packet([10, 0, 2, 2], 1)).unwrap();
    let full = ipv4_packet([10, 0, 2, 2], 64);
    for n in 0..34 {
        sw.inject(1, &full[..n]).unwrap();
    }
    assert!(sw.take_output().is_empty());
}

#[test]
fn api_errors_name_the_culprit() {
    let sw = switch();
    match sw.table_add("nope", &[], "x", &[], 0) {
        Err(ApiError::NotFound(m)) => assert!(m.contains("'nope'"), "{m}"),
        other => panic!("{other:?}"),
    }
    match sw.table_delete("MyIngress.ipv4_lpm", 5) {
        Err(ApiError::NotFound(m)) => assert!(m.contains("handle 5"), "{m}"),
        other => panic!("{other:?}"),
    }
}

fn load_error(edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut j: serde_json::Value = serde_json::from_slice(FIXTURE).unwrap();
    edit(&mut j);
    match Switch::new(0).load_pipeline(j.to_string().as_bytes()) {
        Err(ApiError::Invalid(m)) => m,
        Err(e) => panic!("wrong error kind: {e:?}"),
        Ok(()) => panic!("bad program accepted"),
    }
}

#[test]
fn load_errors_name_the_culprit() {
    let m = load_error(|j| {
        j["parsers"][0]["parse_states"][0]["transitions"][0]["next_state"] = "parse_ipv9".into()
    });
    assert!(m.contains("unknown parse state 'parse_ipv9'"), "{m}");
    let m = load_error(|j| j["calculations"][0]["input"][0]["value"][1] = "hop_limit".into());
    assert!(
        m.contains("calculation 'calc': unknown field 'ipv4.hop_limit'"),
        "{m}"
    );
    let m = load_error(|j| j["pipelines"][0]["tables"][0]["action_ids"][0] = 7.into());
    assert_eq!(m, "table 'MyIngress.ipv4_lpm': unknown action id 7");
    let m = load_error(|j| j["header_types"][3]["fields"][0][1] = "*".into());
    assert!(m.contains("a varbit field needs 'max_length'"), "{m}");
    let m = load_error(|j| j["pipelines"][0]["tables"][0]["type"] = "indirect".into());
    assert_eq!(
        m,
        "table 'MyIngress.ipv4_lpm': type 'indirect' without an action_profile"
    );
    let m = load_error(|j| {
        j["pipelines"][0]["tables"][0]["type"] = "indirect_ws".into();
        j["pipelines"][0]["tables"][0]["action_profile"] = "ap".into();
    });
    assert_eq!(m, "table 'MyIngress.ipv4_lpm': unknown action profile 'ap'");
    let m = load_error(|j| {
        j["pipelines"][0]["action_profiles"] = serde_json::json!([{"name": "ap", "max_size": 4}]);
        j["pipelines"][0]["tables"][0]["type"] = "indirect_ws".into();
        j["pipelines"][0]["tables"][0]["action_profile"] = "ap".into();
    });
    assert!(m.contains("action profile 'ap' has no selector"), "{m}");
    let m = load_error(|j| j["pipelines"][0]["tables"][0]["type"] = "direct".into());
    assert!(m.contains("unknown table type 'direct'"), "{m}");
}
