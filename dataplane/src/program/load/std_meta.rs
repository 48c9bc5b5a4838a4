//! The `standard_metadata` fields the switch itself reads and writes.

use super::Loader;
use crate::program::StdMeta;

impl Loader {
    pub(super) fn std_meta(&self) -> StdMeta {
        let f = |n: &str| {
            self.field_index
                .get(&("standard_metadata".to_owned(), n.to_owned()))
                .copied()
        };
        StdMeta {
            ingress_port: f("ingress_port"),
            egress_spec: f("egress_spec"),
            egress_port: f("egress_port"),
            instance_type: f("instance_type"),
            packet_length: f("packet_length"),
            enq_timestamp: f("enq_timestamp"),
            enq_qdepth: f("enq_qdepth"),
            deq_timedelta: f("deq_timedelta"),
            deq_qdepth: f("deq_qdepth"),
            ingress_global_timestamp: f("ingress_global_timestamp"),
            egress_global_timestamp: f("egress_global_timestamp"),
            mcast_grp: f("mcast_grp"),
            egress_rid: f("egress_rid"),
            qid: f("qid"),
            priority: f("priority"),
            checksum_error: f("checksum_error"),
            parser_error: f("parser_error"),
        }
    }
}
