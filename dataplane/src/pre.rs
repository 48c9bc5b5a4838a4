//! The packet replication engine: multicast groups and clone sessions,
//! configured by the control plane. A replica is (egress port, egress_rid);
//! BMv2 numbers a group's copies by their replica, and so do we.

use std::collections::HashMap;

use crate::pipeline::DROP_PORT;

pub type Replicas = Vec<(u32, u32)>;

#[derive(Debug, Clone)]
pub struct CloneSession {
    pub replicas: Replicas,
    pub class_of_service: u32,
    /// Truncate clones to this many bytes; 0 keeps them whole.
    pub packet_length_bytes: u32,
}

#[derive(Default)]
pub struct Pre {
    groups: HashMap<u32, Replicas>,
    sessions: HashMap<u32, CloneSession>,
}

fn check_replicas(what: &str, replicas: &[(u32, u32)]) -> Result<(), String> {
    for &(port, rid) in replicas {
        if u128::from(port) >= DROP_PORT {
            return Err(format!("{what}: port {port} out of range (0..510)"));
        }
        if rid > u32::from(u16::MAX) {
            return Err(format!("{what}: egress_rid {rid} does not fit in 16 bits"));
        }
    }
    Ok(())
}

impl Pre {
    pub fn group_set(&mut self, id: u32, replicas: Replicas) -> Result<(), String> {
        if id == 0 || id > u32::from(u16::MAX) {
            return Err(format!("multicast group {id} out of range (1..65535)"));
        }
        check_replicas(&format!("multicast group {id}"), &replicas)?;
        self.groups.insert(id, replicas);
        Ok(())
    }

    pub fn group_delete(&mut self, id: u32) -> bool {
        self.groups.remove(&id).is_some()
    }

    pub fn group(&self, id: u32) -> Option<&Replicas> {
        self.groups.get(&id)
    }

    pub fn session_set(&mut self, id: u32, s: CloneSession) -> Result<(), String> {
        if id == 0 {
            return Err("clone session 0 is reserved (it means no clone)".into());
        }
        check_replicas(&format!("clone session {id}"), &s.replicas)?;
        self.sessions.insert(id, s);
        Ok(())
    }

    pub fn session_delete(&mut self, id: u32) -> bool {
        self.sessions.remove(&id).is_some()
    }

    pub fn session(&self, id: u32) -> Option<&CloneSession> {
        self.sessions.get(&id)
    }
}
