//! A line-by-line pass over the OBJ text before `tobj` reads it. `tobj` reports errors
//! without a line number, accepts an index of 0 as "missing", reads `l` polylines as
//! faces and ignores smoothing groups; this pass checks every statement `tobj` would read,
//! naming the line, and records what `tobj` does not keep: each face's smoothing group,
//! the `mtllib` files and the `usemtl` names. It also gives `tobj` a cleaned text in which
//! points and polylines (nothing a triangle mesh holds) are blank lines, so the faces
//! `tobj` returns are exactly the faces recorded here, in the same order.

use crate::code::DiagnosticCode;

/// Why a line is refused: its 1-based number and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineError {
    pub line: usize,
    pub reason: String,
    pub code: DiagnosticCode,
}

/// What the pass learnt about the file.
#[derive(Debug, Default)]
pub struct Scanned {
    /// The text for `tobj`: the source with point and polyline statements blanked.
    pub text: String,
    /// Smoothing group of every face of 3 or more corners, in file order (0: off).
    pub face_groups: Vec<u32>,
    /// Whether some face is in a smoothing group other than 0.
    pub has_smoothing_groups: bool,
    /// `mtllib` statements: line and file name, as written.
    pub mtllibs: Vec<(usize, String)>,
    /// `usemtl` statements: line and material name.
    pub usemtls: Vec<(usize, String)>,
    /// Statements dropped (points, polylines, faces of fewer than 3 corners).
    pub dropped_lines: usize,
    /// First line of each object or group (`o`/`g`) by name, for messages.
    pub groups: Vec<(usize, String)>,
}

/// Checks the file and records its faces. Counts of vertex data are those defined before
/// each face: OBJ indices refer backwards (negative ones relative to the current end).
pub fn scan(text: &str) -> Result<Scanned, LineError> {
    let mut out = Scanned {
        text: String::with_capacity(text.len()),
        ..Default::default()
    };
    // Positions, texture coordinates, normals defined so far.
    let mut counts = [0usize; 3];
    let mut group = 0u32;
    for (i, raw) in text.split('\n').enumerate() {
        let line = i + 1;
        let err = |reason: String| LineError {
            line,
            reason,
            code: DiagnosticCode::InvalidSource,
        };
        let mut words = raw.split_whitespace();
        let keyword = words.next();
        let mut keep = true;
        match keyword {
            Some("v") => {
                let numbers = floats(words, "v").map_err(|e| err(e.to_string()))?;
                check_count(numbers.len(), &[3, 4, 6], "v", "x y z [w] or x y z r g b")
                    .map_err(|e| err(e.to_string()))?;
                if numbers.len() == 4 && numbers[3] == 0.0 {
                    return Err(err("v: w is 0 (the position would be divided by 0)".into()));
                }
                counts[0] += 1;
                if numbers.len() == 6 {
                    // Vertex colours are not imported; tobj fails a file that colours
                    // only some vertices, so it sees the position alone.
                    let xyz: Vec<&str> = raw.split_whitespace().skip(1).take(3).collect();
                    out.text.push_str(&format!("v {}\n", xyz.join(" ")));
                    continue;
                }
            }
            Some("vt") => {
                let n = floats(words, "vt").map_err(|e| err(e.to_string()))?.len();
                if n < 2 {
                    return Err(err(format!("vt: {n} numbers, expected u v [w]")));
                }
                counts[1] += 1;
            }
            Some("vn") => {
                let n = floats(words, "vn").map_err(|e| err(e.to_string()))?.len();
                if n < 3 {
                    return Err(err(format!("vn: {n} numbers, expected x y z")));
                }
                counts[2] += 1;
            }
            Some("f") => {
                let mut corners = 0usize;
                for word in words {
                    // A corner past the indices defined so far is an index out of range.
                    check_corner(word, &counts).map_err(|(code, r)| LineError {
                        code,
                        ..err(format!("f: {r}"))
                    })?;
                    corners += 1;
                }
                if corners < 3 {
                    keep = false;
                } else {
                    out.face_groups.push(group);
                    out.has_smoothing_groups |= group != 0;
                }
            }
            Some("l") | Some("p") => keep = false,
            Some("s") => {
                group = match words.next() {
                    Some("off") => 0,
                    Some(w) => w.parse().map_err(|_| {
                        err(format!(
                            "s: smoothing group {w:?} is neither a whole number nor \"off\""
                        ))
                    })?,
                    None => return Err(err("s: no smoothing group given".into())),
                };
            }
            // Written back as `keyword name` with one space: tobj takes the name after the
            // first space, so a tab or a second space would change it.
            Some(key @ ("mtllib" | "usemtl")) => {
                let name = rest_of(raw, key).map_err(|e| err(e.to_string()))?;
                out.text.push_str(&format!("{key} {name}\n"));
                let list = if key == "mtllib" {
                    &mut out.mtllibs
                } else {
                    &mut out.usemtls
                };
                list.push((line, name));
                continue;
            }
            Some("o") | Some("g") => {
                let name = raw.trim()[1..].trim().to_string();
                out.groups.push((line, name));
            }
            _ => {}
        }
        if keep {
            out.text.push_str(raw);
        } else {
            out.dropped_lines += 1;
        }
        out.text.push('\n');
    }
    Ok(out)
}

/// What is wrong with the words of one statement, naming its keyword.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum StatementError {
    #[error("{keyword}: {word:?} is not a number")]
    NotANumber { keyword: &'static str, word: String },
    #[error("{keyword}: {count} numbers, expected {form}")]
    Count {
        keyword: &'static str,
        count: usize,
        form: &'static str,
    },
    #[error("{0}: no name given")]
    NoName(String),
}

/// Every word after the keyword as a number, or the word that is not one.
fn floats<'a>(
    words: impl Iterator<Item = &'a str>,
    keyword: &'static str,
) -> Result<Vec<f64>, StatementError> {
    words
        .map(|w| {
            w.parse::<f64>().map_err(|_| StatementError::NotANumber {
                keyword,
                word: w.to_owned(),
            })
        })
        .collect()
}

fn check_count(
    count: usize,
    allowed: &[usize],
    keyword: &'static str,
    form: &'static str,
) -> Result<(), StatementError> {
    if allowed.contains(&count) {
        Ok(())
    } else {
        Err(StatementError::Count {
            keyword,
            count,
            form,
        })
    }
}

/// One face corner, `v`, `v/vt`, `v//vn` or `v/vt/vn`: every index present must name an
/// element defined before the line (1-based; -1 is the last one defined).
fn check_corner(word: &str, counts: &[usize; 3]) -> Result<(), (DiagnosticCode, String)> {
    const WHAT: [&str; 3] = ["position", "texture coordinate", "normal"];
    let parts: Vec<&str> = word.split('/').collect();
    if parts.len() > 3 {
        return Err((
            DiagnosticCode::InvalidSource,
            format!("corner {word:?} has more than three indices"),
        ));
    }
    if parts[0].is_empty() {
        return Err((
            DiagnosticCode::InvalidSource,
            format!("corner {word:?} has no position index"),
        ));
    }
    for (k, part) in parts.iter().enumerate() {
        if part.is_empty() {
            continue;
        }
        let index: i64 = part.parse().map_err(|_| {
            (
                DiagnosticCode::InvalidSource,
                format!("corner {word:?}: {part:?} is not an index"),
            )
        })?;
        let defined = counts[k] as i64;
        let ok = if index > 0 {
            index <= defined
        } else {
            index < 0 && -index <= defined
        };
        if !ok {
            return Err((
                DiagnosticCode::IndexOutOfRange,
                format!(
                    "corner {word:?}: {} index {index} is out of range: {defined} {}s are \
                     defined before this line (indices start at 1; -1 is the last one)",
                    WHAT[k], WHAT[k]
                ),
            ));
        }
    }
    Ok(())
}

/// The rest of the line after `keyword`, trimmed: a file or material name, which may hold
/// spaces (as `tobj` reads it).
fn rest_of(raw: &str, keyword: &str) -> Result<String, StatementError> {
    let rest = raw.trim().get(keyword.len()..).unwrap_or("").trim();
    if rest.is_empty() {
        return Err(StatementError::NoName(keyword.to_owned()));
    }
    Ok(rest.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faces_groups_and_dropped_statements() {
        let s = scan(
            "mtllib my mats.mtl\nv 0 0 0\nv 1 0 0 1 0.5 0\nv 0 1 0\nvt 0 0\ns 1\nf 1/1 2/1 3/1\n\
             l 1 2\nf 1 2\ns off\nf -3 -2 -1\nusemtl red\n",
        )
        .unwrap();
        assert_eq!(s.face_groups, vec![1, 0]);
        assert!(s.has_smoothing_groups);
        assert_eq!(s.mtllibs, vec![(1, "my mats.mtl".to_string())]);
        assert_eq!(s.usemtls, vec![(12, "red".to_string())]);
        assert_eq!(s.dropped_lines, 2);
        // Same line count, so tobj's lines are the source's lines.
        assert_eq!(s.text.lines().count(), 13);
        assert!(!s.text.contains("l 1 2"));
        // Colours dropped (some vertices have them, some not: tobj would refuse).
        assert!(s.text.contains("\nv 1 0 0\n"), "{}", s.text);
    }

    #[test]
    fn bad_lines_are_named() {
        let cases = [
            (
                "v 0 0 0\nf 1 2 3\n",
                2,
                "position index 2 is out of range: 1 positions",
            ),
            (
                "v 0 0 0\nv 0 0 0\nv 0 0 0\nf 0 1 2\n",
                4,
                "index 0 is out of range",
            ),
            ("v 0 0 0\nf 1 1 -2\n", 2, "position index -2"),
            ("v 0 0 0\nf 1/1 1 1\n", 2, "texture coordinate index 1"),
            ("v 0 0\n", 1, "2 numbers"),
            ("v 0 x 0\n", 1, "\"x\" is not a number"),
            ("v 0 0 0 0\n", 1, "w is 0"),
            ("vt 0\n", 1, "vt: 1 numbers"),
            ("v 1 2 3\nf 1/2/3/4 1 1\n", 2, "more than three"),
            ("s smooth\n", 1, "smoothing group"),
            ("\n\nusemtl\n", 3, "no name"),
        ];
        for (text, line, expect) in cases {
            let e = scan(text).unwrap_err();
            assert_eq!(e.line, line, "{text:?}: {e:?}");
            assert!(e.reason.contains(expect), "{text:?}: {e:?}");
        }
    }
}
