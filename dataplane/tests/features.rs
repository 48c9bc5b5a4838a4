//! A hand-written program exercising what l3_forward does not: masked and
//! lookahead selects, parser set/verify, ternary+range priority, const
//! entries, __HIT__/__MISS__ branches, registers, exit, egress drop and
//! checksum verification.

use _dataplane::pipeline::checksum::csum16;
use _dataplane::switch::{ApiKey, Switch};
use serde_json::{json, Value};

fn f(h: &str, n: &str) -> Value {
    json!({"type": "field", "value": [h, n]})
}
fn hx(s: &str) -> Value {
    json!({"type": "hexstr", "value": s})
}
fn e(op: &str, l: Value, r: Value) -> Value {
    json!({"type": "expression", "value": {"op": op, "left": l, "right": r}})
}
/// A parameter of type expression: it wraps the expression (JSON_format.md, actions).
fn param(expr: Value) -> Value {
    json!({"type": "expression", "value": expr})
}
fn assign(dst: Value, src: Value) -> Value {
    json!({"op": "assign", "parameters": [dst, src]})
}
fn sm(n: &str) -> Value {
    f("standard_metadata", n)
}

fn program() -> Value {
    let ipv4: Vec<Value> = [
        ("version", 4),
        ("ihl", 4),
        ("tos", 8),
        ("len", 16),
        ("id", 16),
        ("frag", 16),
        ("ttl", 8),
        ("proto", 8),
        ("csum", 16),
        ("src", 32),
        ("dst", 32),
    ]
    .iter()
    .map(|(n, w)| json!([n, w, false]))
    .collect();
    let calc_inputs: Vec<Value> = [
        "version", "ihl", "tos", "len", "id", "frag", "ttl", "proto", "src", "dst",
    ]
    .iter()
    .map(|n| f("ipv4", n))
    .collect();
    let tbl = |name: &str,
               key: Value,
               mt: &str,
               actions: &[(u32, &str)],
               next: Value,
               default: u32| {
        json!({
            "name": name, "key": key, "match_type": mt, "type": "simple", "max_size": 64,
            "direct_meters": null,
            "action_ids": actions.iter().map(|a| a.0).collect::<Vec<_>>(),
            "actions": actions.iter().map(|a| a.1).collect::<Vec<_>>(),
            "base_default_next": null, "next_tables": next,
            "default_entry": {"action_id": default, "action_const": false, "action_data": [], "action_entry_const": false}
        })
    };
    let mut t_exact = tbl(
        "t_exact",
        json!([{"match_type": "exact", "name": "ttl", "target": ["ipv4", "ttl"], "mask": null}]),
        "exact",
        &[(1, "set_port"), (0, "NoAction")],
        json!({"set_port": null, "NoAction": null}),
        0,
    );
    t_exact["entries"] = json!([
        {"match_key": [{"match_type": "exact", "key": "0x21"}], "action_entry": {"action_id": 1, "action_data": ["0x3"]}, "priority": 1}
    ]);
    json!({
        "header_types": [
            {"name": "scalars_0", "fields": [["tmp", 32, false], ["cnt", 32, false]]},
            {"name": "standard_metadata", "fields": [
                ["ingress_port", 9, false], ["egress_spec", 9, false], ["egress_port", 9, false],
                ["packet_length", 32, false], ["mcast_grp", 16, false], ["checksum_error", 1, false],
                ["parser_error", 32, false]]},
            {"name": "ethernet_t", "fields": [["dst", 48, false], ["src", 48, false], ["type", 16, false]]},
            {"name": "ipv4_t", "fields": ipv4}
        ],
        "headers": [
            {"name": "scalars", "header_type": "scalars_0", "metadata": true},
            {"name": "standard_metadata", "header_type": "standard_metadata", "metadata": true},
            {"name": "ethernet", "header_type": "ethernet_t", "metadata": false},
            {"name": "ipv4", "header_type": "ipv4_t", "metadata": false}
        ],
        "errors": [["NoError", 0], ["PacketTooShort", 1], ["NoMatch", 2], ["BadIhl", 7]],
        "parsers": [{"name": "parser", "init_state": "start", "parse_states": [
            {"name": "start",
             "parser_ops": [{"op": "extract", "parameters": [{"type": "regular", "value": "ethernet"}]}],
             "transition_key": [f("ethernet", "type")],
             "transitions": [
                {"type": "hexstr", "value": "0x0800", "mask": "0xff00", "next_state": "peek"},
                {"type": "hexstr", "value": "0x9999", "mask": null, "next_state": null}
             ]},
            {"name": "peek", "parser_ops": [],
             "transition_key": [{"type": "lookahead", "value": [0, 4]}],
             "transitions": [
                {"type": "hexstr", "value": "0x04", "mask": null, "next_state": "parse_ipv4"},
                {"type": "default", "value": null, "mask": null, "next_state": null}
             ]},
            {"name": "parse_ipv4",
             "parser_ops": [
                {"op": "extract", "parameters": [{"type": "regular", "value": "ipv4"}]},
                {"op": "set", "parameters": [f("scalars", "tmp"), param(e("&", e("+", f("ipv4", "ttl"), hx("0x01")), hx("0xffffffff")))]},
                {"op": "verify", "parameters": [e(">=", f("ipv4", "ihl"), hx("0x05")), hx("0x7")]}
             ],
             "transition_key": [],
             "transitions": [{"type": "default", "value": null, "mask": null, "next_state": null}]}
        ]}],
        "deparsers": [{"name": "deparser", "order": ["ethernet", "ipv4"], "primitives": []}],
        "register_arrays": [{"name": "hits", "size": 4, "bitwidth": 16}],
        "calculations": [{"name": "calc", "algo": "csum16", "input": calc_inputs},
                         {"name": "h16", "algo": "crc16", "input": [f("ipv4", "src")]}],
        "actions": [
            {"name": "NoAction", "id": 0, "runtime_data": [], "primitives": []},
            {"name": "set_port", "id": 1, "runtime_data": [{"name": "port", "bitwidth": 9}],
             "primitives": [assign(sm("egress_spec"), json!({"type": "runtime_data", "value": 0}))]},
            {"name": "count_and_exit", "id": 2, "runtime_data": [],
             "primitives": [
                {"op": "register_read", "parameters": [f("scalars", "cnt"), {"type": "register_array", "value": "hits"}, hx("0x1")]},
                {"op": "register_write", "parameters": [{"type": "register_array", "value": "hits"}, hx("0x1"),
                    param(e("&", e("+", f("scalars", "cnt"), hx("0x1")), hx("0xffff")))]},
                assign(f("ipv4", "id"), f("scalars", "cnt")),
                assign(f("ipv4", "tos"), f("scalars", "tmp")),
                assign(f("ipv4", "frag"), sm("checksum_error")),
                {"op": "modify_field_with_hash_based_offset", "parameters": [
                    f("ipv4", "len"), hx("0x0"), {"type": "calculation", "value": "h16"}, hx("0x1000")]},
                assign(sm("egress_spec"), hx("0x1")),
                {"op": "exit", "parameters": []},
                assign(sm("egress_spec"), hx("0x2"))
             ]},
            {"name": "drop", "id": 3, "runtime_data": [],
             "primitives": [{"op": "mark_to_drop", "parameters": [{"type": "header", "value": "standard_metadata"}]}]}
        ],
        "pipelines": [
            {"name": "ingress", "init_table": "t_acl", "tables": [
                tbl("t_acl",
                    json!([{"match_type": "ternary", "name": "dst", "target": ["ipv4", "dst"], "mask": null},
                           {"match_type": "range", "name": "proto", "target": ["ipv4", "proto"], "mask": null}]),
                    "range", &[(1, "set_port"), (0, "NoAction")],
                    json!({"__HIT__": "t_count", "__MISS__": "t_exact"}), 0),
                t_exact,
                tbl("t_count", json!([]), "exact", &[(2, "count_and_exit")], json!({"count_and_exit": null}), 2)
             ], "action_profiles": [], "conditionals": []},
            {"name": "egress", "init_table": "egress_check", "tables": [
                tbl("tbl_drop", json!([]), "exact", &[(3, "drop")], json!({"drop": null}), 3)
             ], "action_profiles": [], "conditionals": [
                {"name": "egress_check", "expression": e("==", sm("egress_port"), hx("0x0003")),
                 "true_next": "tbl_drop", "false_next": null}
             ]}
        ],
        "checksums": [{"name": "ck", "target": ["ipv4", "csum"], "type": "generic", "calculation": "calc",
                       "verify": true, "update": false, "if_cond": null}]
    })
}

fn packet(ttl: u8, proto: u8, dst: [u8; 4], good_csum: bool) -> Vec<u8> {
    let mut p = vec![0xaa; 12];
    p.extend_from_slice(&[0x08, 0x00]);
    let mut ip = vec![0x45, 0, 0, 20, 0, 0, 0, 0, ttl, proto, 0, 0, 10, 0, 0, 1];
    ip.extend_from_slice(&dst);
    let c = if good_csum { csum16(&ip) } else { 0x1234 };
    ip[10..12].copy_from_slice(&c.to_be_bytes());
    p.extend_from_slice(&ip);
    p
}

fn setup() -> Switch {
    let sw = Switch::new(7);
    for p in 0..4 {
        sw.add_memory_port(p).unwrap();
    }
    sw.load_pipeline(program().to_string().as_bytes()).unwrap();
    sw
}

fn run(sw: &Switch, pkt: &[u8]) -> Vec<(u32, Vec<u8>)> {
    sw.inject(0, pkt).unwrap();
    sw.take_output()
}

#[test]
fn hit_branch_runs_registers_and_exit() {
    let sw = setup();
    sw.table_add(
        "t_acl",
        &[
            ApiKey::Ternary(vec![10, 0, 0, 0], vec![255, 0, 0, 0]),
            ApiKey::Range(vec![6], vec![17]),
        ],
        "set_port",
        &[vec![2]],
        10,
    )
    .unwrap();
    for round in 0..2u8 {
        let out = run(&sw, &packet(9, 17, [10, 1, 1, 1], round == 0));
        assert_eq!(out.len(), 1);
        // count_and_exit sets port 1 and exits before resetting it to 2.
        assert_eq!(out[0].0, 1);
        let ip = &out[0].1[14..];
        assert_eq!(ip[1], 10, "tos = ttl + 1 from the parser's set op");
        assert_eq!(
            u16::from_be_bytes([ip[4], ip[5]]),
            u16::from(round),
            "register counts packets"
        );
        assert_eq!(
            u16::from_be_bytes([ip[6], ip[7]]),
            u16::from(round == 1),
            "checksum_error"
        );
        let hash = _dataplane::pipeline::checksum::crc16(&[10, 0, 0, 1]) % 0x1000;
        assert_eq!(
            u16::from_be_bytes([ip[2], ip[3]]),
            hash,
            "hash() into ipv4.len"
        );
    }
}

#[test]
fn priority_decides_between_overlapping_ternary_entries() {
    let sw = setup();
    let key = |v: [u8; 4], m: [u8; 4]| {
        [
            ApiKey::Ternary(v.to_vec(), m.to_vec()),
            ApiKey::Range(vec![0], vec![255]),
        ]
    };
    sw.table_add(
        "t_acl",
        &key([10, 1, 0, 0], [255, 255, 0, 0]),
        "NoAction",
        &[],
        1,
    )
    .unwrap();
    sw.table_add(
        "t_acl",
        &key([10, 0, 0, 0], [255, 0, 0, 0]),
        "NoAction",
        &[],
        5,
    )
    .unwrap();
    assert!(sw
        .table_add(
            "t_acl",
            &key([10, 0, 0, 0], [255, 0, 0, 0]),
            "NoAction",
            &[],
            5
        )
        .is_err());
    // A hit goes to t_count either way; a miss goes to t_exact.
    assert_eq!(run(&sw, &packet(9, 6, [10, 1, 2, 3], true))[0].0, 1);
    assert_eq!(run(&sw, &packet(9, 6, [11, 1, 2, 3], true)).len(), 1);
}

#[test]
fn miss_branch_uses_const_entries_and_egress_drop() {
    let sw = setup();
    // Miss in t_acl -> t_exact; its const entry (ttl 0x21) sends to port 3,
    // where egress drops.
    assert!(run(&sw, &packet(0x21, 6, [1, 1, 1, 1], true)).is_empty());
    // No const entry for ttl 5: NoAction, egress_spec stays 0.
    assert_eq!(run(&sw, &packet(5, 6, [1, 1, 1, 1], true))[0].0, 0);
    assert!(sw
        .table_add("t_exact", &[ApiKey::Exact(vec![5])], "NoAction", &[], 0)
        .is_err());
}

#[test]
fn parser_select_mask_lookahead_and_errors() {
    let sw = setup();
    // 0x9999 accepts after ethernet; 0x0801 matches the masked 0x08xx branch;
    // version 6 fails the lookahead select and is accepted without ipv4.
    let mut p = packet(5, 6, [1, 1, 1, 1], true);
    p[12..14].copy_from_slice(&[0x99, 0x99]);
    assert_eq!(run(&sw, &p)[0].1, p);
    p[12..14].copy_from_slice(&[0x08, 0x01]);
    p[14] = 0x65;
    assert_eq!(run(&sw, &p)[0].1, p);
    // An unknown ethertype has no default: NoMatch, still forwarded as is.
    p[12..14].copy_from_slice(&[0x12, 0x34]);
    assert_eq!(run(&sw, &p)[0].1, p);
    // ihl 4 fails verify; the ipv4 header stays extracted.
    p[12..14].copy_from_slice(&[0x08, 0x00]);
    p[14] = 0x44;
    assert_eq!(run(&sw, &p).len(), 1);
}

#[test]
fn advance_skips_bytes_before_extract() {
    let mut prog = program();
    prog["parsers"][0]["parse_states"][0]["parser_ops"]
        .as_array_mut()
        .unwrap()
        .insert(0, json!({"op": "advance", "parameters": [hx("0x30")]}));
    let sw = Switch::new(0);
    sw.add_memory_port(0).unwrap();
    sw.load_pipeline(prog.to_string().as_bytes()).unwrap();
    let mut p = vec![0x11; 18];
    p.extend_from_slice(&[0x99, 0x99, 1, 2, 3]);
    // The skipped six bytes are not deparsed; the rest passes unchanged.
    assert_eq!(run(&sw, &p), vec![(0, p[6..].to_vec())]);
    // Too short to advance: PacketTooShort, and the packet goes on unparsed.
    assert_eq!(run(&sw, &p[..5]), vec![(0, p[..5].to_vec())]);
}

#[test]
fn parser_set_from_lookahead() {
    let mut prog = program();
    // In `peek`: egress_spec = lookahead<bit<8>>() at bit 8 (the IPv4 tos).
    prog["parsers"][0]["parse_states"][1]["parser_ops"] = json!([
        {"op": "set", "parameters": [sm("egress_spec"), {"type": "lookahead", "value": [8, 8]}]}
    ]);
    let sw = Switch::new(0);
    for p in 0..4 {
        sw.add_memory_port(p).unwrap();
    }
    sw.load_pipeline(prog.to_string().as_bytes()).unwrap();
    let mut p = packet(5, 6, [1, 1, 1, 1], true);
    p[15] = 2;
    assert_eq!(run(&sw, &p)[0].0, 2);
}
