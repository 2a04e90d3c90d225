//! The storage behind the remote cache: an Apache OpenDAL operator chosen by the URL's
//! scheme, used through get and put only (nginx's WebDAV module answers the listing and
//! folder verbs with 405, and a cache needs nothing else).

use std::time::Duration;

/// A call that has not finished in this time fails (a hung server must not hang a
/// build); reads and writes are also bounded per chunk.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);
const IO_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the first connection may take before the server counts as down.
const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

/// What a bounded read found.
#[derive(Debug)]
pub enum Bounded {
    /// The whole value, no longer than the limit.
    Whole(Vec<u8>),
    /// More than the limit: reading stopped there.
    TooLarge,
    /// The value did not arrive within its time (a trickling body).
    TooSlow,
}

/// A body must arrive within [`CALL_TIMEOUT`] plus its size at this rate: each chunk is
/// bounded by [`IO_TIMEOUT`] already, but a server sending one byte every few seconds would
/// otherwise hold a worker for ever.
pub const MIN_BYTES_PER_SECOND: u64 = 1 << 20;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{0}")]
    Url(String),
    #[error("cannot connect to {address}: {reason}")]
    Unreachable { address: String, reason: String },
    #[error("cannot start the network runtime: {0}")]
    Runtime(#[from] std::io::Error),
    /// The HTTP client could not be set up (no CA certificate found on the system).
    #[cfg(feature = "remote-http")]
    #[error("cannot set up TLS: {0}")]
    Tls(String),
    #[error("{}", with_cause(.0))]
    Storage(#[from] opendal::Error),
    #[error("reading from the remote cache: {}", with_cause(.0))]
    Io(std::io::Error),
}

/// `error`, followed by its innermost cause when its own text leaves it out: OpenDAL's and
/// reqwest's messages stop at "send http request" / "error sending request", and the cause
/// (an untrusted certificate, a reset connection) is what the user can act on.
fn with_cause(error: &(dyn std::error::Error + 'static)) -> String {
    let text = error.to_string();
    let mut innermost = None;
    let mut next = error.source();
    while let Some(e) = next {
        innermost = Some(e);
        next = e.source();
    }
    match innermost.map(|e| e.to_string()) {
        Some(cause) if !cause.is_empty() && !text.contains(&cause) => format!("{text}: {cause}"),
        _ => text,
    }
}

/// The URL schemes this build of assetc can use (its `remote-*` features).
pub const SCHEMES: &[&str] = &[
    #[cfg(feature = "remote-webdav")]
    "http",
    #[cfg(feature = "remote-webdav")]
    "https",
    #[cfg(feature = "remote-redis")]
    "redis",
    #[cfg(feature = "remote-redis")]
    "rediss",
    #[cfg(feature = "remote-s3")]
    "s3",
];

/// Checks a remote cache URL without connecting: a scheme this build knows, a host.
pub fn check_url(url: &str) -> Result<(), StoreError> {
    let parsed = parse(url)?;
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(StoreError::Url(format!(
            "remote cache URL `{}` has no host",
            redacted(url)
        )));
    }
    Ok(())
}

fn parse(url: &str) -> Result<url::Url, StoreError> {
    let parsed = url::Url::parse(url)
        .map_err(|e| StoreError::Url(format!("remote cache URL `{}`: {e}", redacted(url))))?;
    if !SCHEMES.contains(&parsed.scheme()) {
        return Err(StoreError::Url(format!(
            "remote cache URL `{}`: unsupported scheme `{}` (this assetc knows {})",
            redacted(url),
            parsed.scheme(),
            SCHEMES.join(", ")
        )));
    }
    Ok(parsed)
}

/// The URL as it may be printed: user and password hidden.
pub fn redacted(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) if !u.username().is_empty() || u.password().is_some() => {
            let _ = u.set_username("***");
            let _ = u.set_password(None);
            u.to_string()
        }
        _ => url.to_string(),
    }
}

pub use imp::Store;

// Built with only some storages, the URL parts the others read go unused.
#[cfg_attr(
    not(all(
        feature = "remote-webdav",
        feature = "remote-s3",
        feature = "remote-redis"
    )),
    allow(unused_imports, unused_variables)
)]
mod imp {
    use super::*;
    use opendal::{blocking, layers::TimeoutLayer, services, ErrorKind, Operator};
    use percent_encoding::percent_decode_str;

    /// An operator and the runtime it runs on. The blocking operator needs a
    /// multi-thread runtime (on a current-thread one it never returns); it is shared by
    /// the build's workers.
    pub struct Store {
        // Declared first: dropped before the runtime it runs on.
        op: blocking::Operator,
        _runtime: tokio::runtime::Runtime,
    }

    impl Store {
        pub fn open(url: &str) -> Result<Store, StoreError> {
            let parsed = parse(url)?;
            probe(&parsed)?;
            // TLS uses the process's rustls provider: ring, unless a program that embeds
            // assetc installed its own before (then its own is kept and used).
            let _ = rustls::crypto::ring::default_provider().install_default();
            // The first installed transport wins: a second build in the process (watch
            // mode) keeps the first one's.
            #[cfg(feature = "remote-http")]
            opendal::HttpTransporter::install_default(http_transport()?);
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .thread_name("assetc-remote")
                .enable_all()
                .build()?;
            let op = operator(&parsed)?.layer(
                TimeoutLayer::new()
                    .with_timeout(CALL_TIMEOUT)
                    .with_io_timeout(IO_TIMEOUT),
            );
            let op = {
                let _entered = runtime.enter();
                blocking::Operator::new(op)?
            };
            Ok(Store {
                op,
                _runtime: runtime,
            })
        }

        /// The bytes under `path`, read as a stream and never more than `limit` of them
        /// (a server may announce or send any length: reading stops one byte past the
        /// limit and the connection is dropped), within [`CALL_TIMEOUT`] plus `limit` at
        /// [`MIN_BYTES_PER_SECOND`]; `None` when nothing is stored there.
        pub fn get_bounded(&self, path: &str, limit: u64) -> Result<Option<Bounded>, StoreError> {
            let started = std::time::Instant::now();
            let deadline = CALL_TIMEOUT + Duration::from_secs(limit / MIN_BYTES_PER_SECOND);
            let chunks = match self.op.reader(path).and_then(|r| r.into_bytes_iterator(..)) {
                Ok(chunks) => chunks,
                Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(e.into()),
            };
            // Never past the limit: an announced length is not trusted with memory. The
            // limit (a size a record declares) is reserved up front, up to 256 MiB, so a
            // large blob is not copied while it grows; pages become resident only as
            // bytes arrive.
            let reserve = usize::try_from(limit.min(256 << 20)).unwrap_or(0);
            let mut bytes = Vec::with_capacity(reserve);
            for chunk in chunks {
                let chunk = match chunk {
                    Ok(c) => c,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                    Err(e) => return Err(StoreError::Io(e)),
                };
                if (bytes.len() + chunk.len()) as u64 > limit {
                    return Ok(Some(Bounded::TooLarge));
                }
                bytes.extend_from_slice(&chunk);
                if started.elapsed() > deadline {
                    return Ok(Some(Bounded::TooSlow));
                }
            }
            Ok(Some(Bounded::Whole(bytes)))
        }

        pub fn put(&self, path: &str, bytes: Vec<u8>) -> Result<(), StoreError> {
            self.op.write(path, bytes)?;
            Ok(())
        }
    }

    /// OpenDAL's reqwest transport with a client of ours: `ReqwestTransport::default()`
    /// panics where building the client fails (no CA certificate found on the system).
    #[cfg(feature = "remote-http")]
    fn http_transport() -> Result<opendal_http_transport_reqwest::ReqwestTransport, StoreError> {
        let client = reqwest::Client::builder()
            .build()
            .map_err(|e| StoreError::Tls(with_cause(&e)))?;
        Ok(opendal_http_transport_reqwest::ReqwestTransport::new(
            client,
        ))
    }

    /// Connects once to the server's address, when the URL names it. A server that is
    /// down then costs a refused connection (milliseconds) instead of the Redis client's
    /// own reconnection attempts (seconds of them, docs/scale.md) on the first call. S3 endpoints
    /// come from the AWS configuration: OpenDAL finds them.
    fn probe(url: &url::Url) -> Result<(), StoreError> {
        use std::net::{TcpStream, ToSocketAddrs};
        let port = match (url.port(), url.scheme()) {
            (Some(p), _) => p,
            (None, "http") => 80,
            (None, "https") => 443,
            (None, "redis" | "rediss") => 6379,
            _ => return Ok(()),
        };
        let host = url.host_str().unwrap_or_default();
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let address = format!("{host}:{port}");
        let unreachable = |reason: String| StoreError::Unreachable {
            address: address.clone(),
            reason,
        };
        let addrs = (host, port)
            .to_socket_addrs()
            .map_err(|e| unreachable(e.to_string()))?;
        let mut last = String::from("no address");
        for addr in addrs {
            match TcpStream::connect_timeout(&addr, PROBE_TIMEOUT) {
                Ok(_) => return Ok(()),
                Err(e) => last = e.to_string(),
            }
        }
        Err(unreachable(last))
    }

    fn decoded(s: &str) -> String {
        percent_decode_str(s).decode_utf8_lossy().into_owned()
    }

    fn operator(url: &url::Url) -> Result<Operator, StoreError> {
        let host = url.host_str().unwrap_or_default();
        let port = url.port().map(|p| format!(":{p}")).unwrap_or_default();
        let root = match url.path() {
            "" => "/".to_string(),
            p => decoded(p),
        };
        let user = decoded(url.username());
        let password = url.password().map(decoded);
        let query = |key: &str| {
            url.query_pairs()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.into_owned())
        };
        let op = match url.scheme() {
            #[cfg(feature = "remote-webdav")]
            "http" | "https" => {
                let mut b = services::Webdav::default()
                    .endpoint(&format!("{}://{host}{port}", url.scheme()))
                    .root(&root)
                    // Plain servers (nginx) refuse MKCOL; they create folders on PUT.
                    .disable_create_dir(true);
                if !user.is_empty() {
                    b = b.username(&user);
                }
                if let Some(p) = &password {
                    b = b.password(p);
                }
                Operator::new(b)?
            }
            #[cfg(feature = "remote-redis")]
            "redis" | "rediss" => {
                let mut b = services::Redis::default()
                    .endpoint(&format!("{}://{host}{port}", url.scheme()))
                    .root("/");
                let db = root.trim_matches('/');
                if !db.is_empty() {
                    let db: i64 = db.parse().map_err(|_| {
                        StoreError::Url(format!(
                            "remote cache URL `{}`: the path must be a database number",
                            redacted(url.as_str())
                        ))
                    })?;
                    b = b.db(db);
                }
                if !user.is_empty() {
                    b = b.username(&user);
                }
                if let Some(p) = &password {
                    b = b.password(p);
                }
                Operator::new(b)?
            }
            #[cfg(feature = "remote-s3")]
            "s3" => {
                // Credentials, and the region and endpoint unless the URL's query gives
                // them, come from the usual AWS environment and files (AWS_ACCESS_KEY_ID,
                // AWS_REGION, AWS_ENDPOINT_URL, ~/.aws): OpenDAL loads them.
                let mut b = services::S3::default().bucket(host).root(&root);
                if let Some(region) = query("region") {
                    b = b.region(&region);
                }
                if let Some(endpoint) = query("endpoint") {
                    b = b.endpoint(&endpoint);
                }
                Operator::new(b)?
            }
            other => {
                return Err(StoreError::Url(format!("unsupported scheme `{other}`")));
            }
        };
        Ok(op)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked_without_connecting_and_printed_without_secrets() {
        assert!(check_url("http://127.0.0.1:8080/cache").is_ok());
        assert!(check_url("redis://127.0.0.1:6379/2").is_ok());
        assert!(check_url("s3://team-assets/cache").is_ok());
        let e = check_url("ftp://host/x").unwrap_err().to_string();
        assert!(e.contains("unsupported scheme `ftp`"), "{e}");
        assert!(check_url("not a url").is_err());
        assert_eq!(
            redacted("redis://user:secret@host:6379/0"),
            "redis://***@host:6379/0"
        );
        assert_eq!(redacted("http://host/x"), "http://host/x");
    }

    #[test]
    fn a_storage_error_names_its_innermost_cause_once() {
        // reqwest's and OpenDAL's own texts stop short of the cause (here a certificate).
        let cause = std::io::Error::other("invalid peer certificate: UnknownIssuer");
        let outer = std::io::Error::new(std::io::ErrorKind::ConnectionAborted, OuterError(cause));
        let e = StoreError::from(
            opendal::Error::new(opendal::ErrorKind::Unexpected, "send http request")
                .set_source(outer),
        )
        .to_string();
        assert!(e.contains("send http request"), "{e}");
        assert!(
            e.ends_with(": invalid peer certificate: UnknownIssuer"),
            "{e}"
        );
        assert_eq!(e.matches("UnknownIssuer").count(), 1, "{e}");
        // A cause already in the text is not repeated.
        let e = StoreError::from(opendal::Error::new(
            opendal::ErrorKind::NotFound,
            "nothing here",
        ))
        .to_string();
        assert!(!e.ends_with(": nothing here"), "{e}");
    }

    /// An error whose text leaves out its source, as reqwest's does.
    #[derive(Debug)]
    struct OuterError(std::io::Error);
    impl std::fmt::Display for OuterError {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("error sending request")
        }
    }
    impl std::error::Error for OuterError {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }
}
