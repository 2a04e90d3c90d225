//! Exact-size zlib inflation with output bounded by the declared size [S3]: a stream that
//! would expand past it is stopped one byte after the limit, so a zip bomb costs at most
//! the declared (already budget-checked) buffer.

use flate2::{Decompress, FlushDecompress, Status};
use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum InflateFault {
    #[error("corrupt zlib stream: {0}")]
    Corrupt(String),
    #[error("zlib stream ends early after {produced} of {expected} bytes")]
    Truncated { produced: u64, expected: u64 },
    #[error("zlib stream inflates to more than the declared {expected} bytes")]
    TooLong { expected: u64 },
    #[error("zlib stream inflates to {produced} bytes, not the declared {expected}")]
    TooShort { produced: u64, expected: u64 },
    #[error("{extra} bytes follow the end of the zlib stream")]
    TrailingInput { extra: u64 },
    #[error("cannot allocate {size} bytes for the output")]
    Alloc { size: u64 },
}

/// Inflates one zlib stream that must use all of `input` and yield exactly `expected` bytes.
pub(crate) fn inflate_exact(input: &[u8], expected: usize) -> Result<Vec<u8>, InflateFault> {
    let expected_u64 = expected as u64;
    let mut out = Vec::new();
    out.try_reserve_exact(expected)
        .map_err(|_| InflateFault::Alloc { size: expected_u64 })?;
    let mut z = Decompress::new(true);
    loop {
        let consumed = usize::try_from(z.total_in()).unwrap_or(usize::MAX);
        let rest = input.get(consumed..).unwrap_or(&[]);
        let before = (z.total_in(), z.total_out());
        let status = if out.len() < expected {
            z.decompress_vec(rest, &mut out, FlushDecompress::None)
        } else {
            // The output is complete: the stream may only finish now, without more output.
            let mut probe = [0u8; 1];
            z.decompress(rest, &mut probe, FlushDecompress::None)
        }
        .map_err(|e| InflateFault::Corrupt(e.to_string()))?;
        if z.total_out() > expected_u64 {
            return Err(InflateFault::TooLong {
                expected: expected_u64,
            });
        }
        if status == Status::StreamEnd {
            break;
        }
        if (z.total_in(), z.total_out()) == before {
            return Err(InflateFault::Truncated {
                produced: z.total_out(),
                expected: expected_u64,
            });
        }
    }
    let extra = (input.len() as u64).saturating_sub(z.total_in());
    if extra != 0 {
        return Err(InflateFault::TrailingInput { extra });
    }
    if out.len() != expected {
        return Err(InflateFault::TooShort {
            produced: out.len() as u64,
            expected: expected_u64,
        });
    }
    Ok(out)
}
