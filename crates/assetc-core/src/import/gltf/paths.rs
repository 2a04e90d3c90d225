//! URI handling shared by buffers and images: `data:` URIs and relative file references that
//! must stay inside the input tree.

use super::Ctx;
use base64::Engine;
use std::path::{Path, PathBuf};

use crate::import::input_root::{resolve_below, InputPathError};

/// Why a URI or a file name cannot be read from: a `data:` URI we cannot decode, or a
/// reference that would leave the input tree.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UriError {
    #[error("data: URI without a ',' separator")]
    NoSeparator,
    #[error("bad base64 in data: URI: {0}")]
    BadBase64(String),
    #[error("absolute or remote URIs are not allowed")]
    AbsoluteUri,
    #[error("URI is not UTF-8 after percent-decoding")]
    NotUtf8,
    /// A file name that leaves the input tree.
    #[error(transparent)]
    Path(#[from] InputPathError),
}

/// A decoded `data:` URI.
pub struct DataUri {
    pub mime_type: Option<String>,
    pub bytes: Vec<u8>,
}

/// `None` when `uri` is not a `data:` URI; `Some(Err)` when it is one we cannot decode.
pub fn parse_data_uri(uri: &str) -> Option<Result<DataUri, UriError>> {
    let rest = uri.strip_prefix("data:")?;
    let Some((header, payload)) = rest.split_once(',') else {
        return Some(Err(UriError::NoSeparator));
    };
    let (mime, is_base64) = match header.strip_suffix(";base64") {
        Some(mime) => (mime, true),
        None => (header, false),
    };
    let mime_type = (!mime.is_empty()).then(|| mime.to_string());
    let bytes = if is_base64 {
        match base64::engine::general_purpose::STANDARD.decode(payload.trim()) {
            Ok(b) => b,
            Err(e) => return Some(Err(UriError::BadBase64(e.to_string()))),
        }
    } else {
        percent_encoding::percent_decode_str(payload).collect()
    };
    Some(Ok(DataUri { mime_type, bytes }))
}

/// Resolves a relative URI against the source folder and checks that it stays inside the
/// input root: first lexically (so that a missing file still gets a path the texture stage
/// can report), then, for a file that exists, by its real path, so that a symbolic link in
/// the tree cannot lead a build to read (or the Qt target to copy) a file outside it.
pub fn resolve_relative(ctx: &Ctx, uri: &str) -> Result<PathBuf, UriError> {
    if uri.contains("://") || uri.starts_with('/') || uri.starts_with('\\') {
        return Err(UriError::AbsoluteUri);
    }
    let decoded = percent_encoding::percent_decode_str(uri)
        .decode_utf8()
        .map_err(|_| UriError::NotUtf8)?;
    Ok(resolve_below(
        &ctx.base_dir,
        &ctx.input_root,
        Path::new(decoded.as_ref()),
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_uri_base64_and_plain() {
        let d = parse_data_uri("data:application/octet-stream;base64,AAEC")
            .and_then(Result::ok)
            .map(|d| (d.mime_type, d.bytes));
        assert_eq!(
            d,
            Some((Some("application/octet-stream".into()), vec![0, 1, 2]))
        );
        assert!(parse_data_uri("foo.bin").is_none());
        assert!(matches!(parse_data_uri("data:;base64,@@"), Some(Err(_))));
    }
}
