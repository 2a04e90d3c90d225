//! The storage behind the shared remote cache: WebDAV, S3 or Redis through Apache OpenDAL,
//! one cargo feature per storage (`remote-webdav`, `remote-s3`, `remote-redis`). Without
//! any, every URL is refused. The cache's protocol (keys, records, blobs) is the driver's
//! (`driver::remote`); this module only moves bytes and checks URLs.

#[cfg(feature = "remote-core")]
mod store;
#[cfg(not(feature = "remote-core"))]
#[path = "no_store.rs"]
mod store;

pub use store::*;
