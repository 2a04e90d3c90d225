//! How a build uses the shared remote cache: its mode, the largest blob it fetches, and
//! the check of a URL that config files and the command line run before any build.

use serde::Deserialize;

/// `[cache] max_blob_bytes` when build.toml does not set it: the largest output file
/// fetched (larger ones are built here).
pub const DEFAULT_MAX_BLOB_BYTES: u64 = 1 << 30;

/// Whether a build reads from the remote cache, writes to it, or both.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RemoteMode {
    /// Fetch only (a developer machine that should not publish its builds).
    Read,
    /// Upload only (a CI machine that fills the cache from clean builds).
    Write,
    #[default]
    ReadWrite,
}

impl RemoteMode {
    pub fn reads(self) -> bool {
        self != RemoteMode::Write
    }
    pub fn writes(self) -> bool {
        self != RemoteMode::Read
    }
}

/// A `--remote-cache-mode` that is none of the three.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected read, write or readwrite, got `{0}`")]
pub struct UnknownRemoteMode(pub String);

impl std::str::FromStr for RemoteMode {
    type Err = UnknownRemoteMode;
    fn from_str(s: &str) -> Result<Self, UnknownRemoteMode> {
        match s {
            "read" => Ok(RemoteMode::Read),
            "write" => Ok(RemoteMode::Write),
            "readwrite" => Ok(RemoteMode::ReadWrite),
            _ => Err(UnknownRemoteMode(s.to_owned())),
        }
    }
}

/// Checks a remote cache URL without connecting (a usage error when it fails).
pub fn check_url(url: &str) -> Result<(), crate::remote_store::StoreError> {
    crate::remote_store::check_url(url)
}
