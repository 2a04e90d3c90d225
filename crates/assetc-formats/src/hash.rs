//! FNV-1a 64, the hash behind material refs, texture ids, manifest ids and SparkPak paths.

const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0100_0000_01b3;

/// FNV-1a 64 over `bytes` as given (texture content ids, SparkPak path hashes).
pub fn fnv1a64_raw(bytes: &[u8]) -> u64 {
    fnv1a64_raw_continue(OFFSET_BASIS, bytes)
}

/// Continues an FNV-1a 64 hash over more bytes, for ids built from several parts.
pub fn fnv1a64_raw_continue(mut hash: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(PRIME);
    }
    hash
}

/// FNV-1a 64 with ASCII `A`-`Z` folded to lower case, as formats.md defines `fnv1a64(s)`
/// for material refs and manifest ids.
pub fn fnv1a64(s: &str) -> u64 {
    let mut hash = OFFSET_BASIS;
    for b in s.bytes() {
        hash ^= u64::from(b.to_ascii_lowercase());
        hash = hash.wrapping_mul(PRIME);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_fnv1a64_values() {
        // Reference values of the FNV-1a 64 test suite (Fowler/Noll/Vo).
        assert_eq!(fnv1a64_raw(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a64_raw(b"a"), 0xaf63dc4c8601ec8c);
        assert_eq!(fnv1a64_raw(b"foobar"), 0x85944171f73967e8);
    }

    #[test]
    fn case_folding_only_in_fnv1a64() {
        assert_eq!(fnv1a64("FooBar"), fnv1a64_raw(b"foobar"));
        assert_ne!(fnv1a64_raw(b"FooBar"), fnv1a64_raw(b"foobar"));
        // Only ASCII is folded: non-ASCII bytes hash as they are.
        assert_eq!(fnv1a64("É"), fnv1a64_raw("É".as_bytes()));
    }

    #[test]
    fn continue_equals_one_pass() {
        assert_eq!(
            fnv1a64_raw_continue(fnv1a64_raw(b"foo"), b"bar"),
            fnv1a64_raw(b"foobar")
        );
    }
}
