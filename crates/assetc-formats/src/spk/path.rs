//! Archive path rules [S2] [S7]: what a path may look like so that every reader, and
//! extraction on any OS, maps it to a file inside the target folder.

use thiserror::Error;

#[derive(Debug, Error, Clone, Copy, PartialEq, Eq)]
pub enum PathFault {
    #[error("path is empty")]
    Empty,
    #[error("path is {0} bytes, longer than a u16 PathLength")]
    TooLong(usize),
    #[error("path has a non-ASCII byte {0:#04x} [S2]")]
    NonAscii(u8),
    #[error("path is absolute")]
    Absolute,
    #[error("path has an empty component")]
    EmptyComponent,
    #[error("path has a `.` or `..` component")]
    DotComponent,
    #[error("path has a backslash")]
    Backslash,
    #[error("path has a colon (drive letter or stream name)")]
    Colon,
    #[error("path has control character {0:#04x}")]
    Control(u8),
    #[error("path has a Windows device name component")]
    DeviceName,
}

/// Windows opens these as devices whatever their extension (`con.txt` too).
const DEVICE_NAMES: [&str; 22] = [
    "con", "prn", "aux", "nul", "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8",
    "com9", "lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9",
];

/// Checks `path` against [S7] (and [S2]'s ASCII-only reading).
pub fn check_path(path: &[u8]) -> Result<(), PathFault> {
    if path.is_empty() {
        return Err(PathFault::Empty);
    }
    if path.len() > usize::from(u16::MAX) {
        return Err(PathFault::TooLong(path.len()));
    }
    for &b in path {
        match b {
            0x80..=0xFF => return Err(PathFault::NonAscii(b)),
            b'\\' => return Err(PathFault::Backslash),
            b':' => return Err(PathFault::Colon),
            0x00..=0x1F | 0x7F => return Err(PathFault::Control(b)),
            _ => {}
        }
    }
    if path[0] == b'/' {
        return Err(PathFault::Absolute);
    }
    for part in path.split(|&b| b == b'/') {
        match part {
            b"" => return Err(PathFault::EmptyComponent),
            b"." | b".." => return Err(PathFault::DotComponent),
            _ => {}
        }
        let stem = part.split(|&b| b == b'.').next().unwrap_or(part);
        if DEVICE_NAMES
            .iter()
            .any(|d| stem.eq_ignore_ascii_case(d.as_bytes()))
        {
            return Err(PathFault::DeviceName);
        }
    }
    Ok(())
}
