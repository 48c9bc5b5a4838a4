//! Errors of the switch's API: python.rs maps them to KeyError and
//! ValueError.

#[derive(Debug)]
pub enum ApiError {
    NotFound(String),
    Invalid(String),
}

pub type ApiResult<T> = Result<T, ApiError>;
