//! Bounds-checked little-endian reading and writing shared by the format readers.

use thiserror::Error;

/// A read past the end of the data, with where it happened.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{what} at offset {offset} needs {needed} bytes but only {available} remain")]
pub struct OutOfBounds {
    pub what: &'static str,
    pub offset: usize,
    pub needed: usize,
    pub available: usize,
}

/// A cursor over a byte slice whose reads never panic.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Self { data, pos: 0 }
    }
    pub fn at(data: &'a [u8], pos: usize) -> Self {
        Self { data, pos }
    }
    pub fn pos(&self) -> usize {
        self.pos
    }
    pub fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }
    pub fn bytes(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], OutOfBounds> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.data.len())
            .ok_or(OutOfBounds {
                what,
                offset: self.pos,
                needed: n,
                available: self.remaining(),
            })?;
        let slice = &self.data[self.pos..end];
        self.pos = end;
        Ok(slice)
    }
    pub fn skip(&mut self, n: usize, what: &'static str) -> Result<(), OutOfBounds> {
        self.bytes(n, what).map(|_| ())
    }
    pub fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], OutOfBounds> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.bytes(N, what)?);
        Ok(out)
    }
    pub fn u8(&mut self, what: &'static str) -> Result<u8, OutOfBounds> {
        Ok(self.array::<1>(what)?[0])
    }
    pub fn u16(&mut self, what: &'static str) -> Result<u16, OutOfBounds> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }
    pub fn u32(&mut self, what: &'static str) -> Result<u32, OutOfBounds> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }
    pub fn u64(&mut self, what: &'static str) -> Result<u64, OutOfBounds> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }
    pub fn i32(&mut self, what: &'static str) -> Result<i32, OutOfBounds> {
        Ok(i32::from_le_bytes(self.array(what)?))
    }
    pub fn f32(&mut self, what: &'static str) -> Result<f32, OutOfBounds> {
        Ok(f32::from_le_bytes(self.array(what)?))
    }
}

/// Little-endian append helpers for writers.
pub trait WriteLe {
    fn put_u8(&mut self, v: u8);
    fn put_u16(&mut self, v: u16);
    fn put_u32(&mut self, v: u32);
    fn put_u64(&mut self, v: u64);
    fn put_i32(&mut self, v: i32);
    fn put_f32(&mut self, v: f32);
    /// Zero bytes up to the next multiple of `align`.
    fn pad_to(&mut self, align: usize);
}

impl WriteLe for Vec<u8> {
    fn put_u8(&mut self, v: u8) {
        self.push(v);
    }
    fn put_u16(&mut self, v: u16) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_u32(&mut self, v: u32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_u64(&mut self, v: u64) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_i32(&mut self, v: i32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_f32(&mut self, v: f32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn pad_to(&mut self, align: usize) {
        let rem = self.len() % align;
        if rem != 0 {
            self.resize(self.len() + align - rem, 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_past_end_fail_without_panic() {
        let mut r = Reader::new(&[1, 2, 3]);
        assert_eq!(r.u16("a").unwrap(), 0x0201);
        let err = r.u32("b").unwrap_err();
        assert_eq!((err.offset, err.needed, err.available), (2, 4, 1));
        assert!(r.bytes(usize::MAX, "huge").is_err());
    }
}
