//! The packet replication engine's API: multicast groups and clone
//! sessions (src/pre.rs keeps them).

use super::Switch;
use crate::error::{ApiError, ApiResult};
use crate::pre::{CloneSession, Replicas};
use crate::sync::write_lock;

impl Switch {
    pub fn mc_group_set(&self, id: u32, replicas: Replicas) -> ApiResult<()> {
        write_lock(&self.pre)
            .group_set(id, replicas)
            .map_err(ApiError::Invalid)
    }

    pub fn mc_group_delete(&self, id: u32) -> ApiResult<()> {
        let mut pre = write_lock(&self.pre);
        if pre.group_delete(id) {
            Ok(())
        } else {
            Err(ApiError::NotFound(format!(
                "multicast group {id} does not exist"
            )))
        }
    }

    pub fn clone_session_set(&self, id: u32, s: CloneSession) -> ApiResult<()> {
        write_lock(&self.pre)
            .session_set(id, s)
            .map_err(ApiError::Invalid)
    }

    pub fn clone_session_delete(&self, id: u32) -> ApiResult<()> {
        let mut pre = write_lock(&self.pre);
        if pre.session_delete(id) {
            Ok(())
        } else {
            Err(ApiError::NotFound(format!(
                "clone session {id} does not exist"
            )))
        }
    }
}
