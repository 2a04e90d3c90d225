//! A small document model for `inspect` and `info`: key/value facts, tables and warnings,
//! printed as aligned text for people or as one JSON object with `--json`.

/// The document model is the formats crate's (what a format's descriptor fills in);
/// printing it is the command line's, through [`DocText`].
pub use assetc::formats::describe::{Document as Doc, Table};
use std::fmt::Write;

/// A document as people and scripts read it.
pub trait DocText {
    /// The document as typed JSON.
    fn to_json(&self) -> serde_json::Value;
    /// Aligned text.
    fn render(&self) -> String;
}

impl DocText for Doc {
    /// The document as typed JSON: facts as one object, each table's rows as objects
    /// keyed by column, and every value that is a plain number as a JSON number (sizes
    /// with units, names and lists stay strings).
    fn to_json(&self) -> serde_json::Value {
        let facts: serde_json::Map<String, serde_json::Value> = self
            .facts
            .iter()
            .map(|(label, value)| (label.clone(), typed(value)))
            .collect();
        let tables: serde_json::Map<String, serde_json::Value> = self
            .tables
            .iter()
            .map(|t| {
                let rows: Vec<serde_json::Value> = t
                    .rows
                    .iter()
                    .map(|r| {
                        let row: serde_json::Map<String, serde_json::Value> = t
                            .columns
                            .iter()
                            .zip(r)
                            .map(|(c, v)| (c.clone(), typed(v)))
                            .collect();
                        serde_json::Value::Object(row)
                    })
                    .collect();
                (t.name.clone(), serde_json::Value::Array(rows))
            })
            .collect();
        serde_json::json!({
            "title": self.title,
            "facts": facts,
            "tables": tables,
            "warnings": self.warnings,
        })
    }

    /// Aligned text: title, facts, each non-empty table with a header row, warnings.
    fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{}", self.title);
        let width = self.facts.iter().map(|(l, _)| l.len()).max().unwrap_or(0);
        for (label, value) in &self.facts {
            let _ = writeln!(out, "  {label:<width$}  {value}");
        }
        for t in self.tables.iter().filter(|t| !t.rows.is_empty()) {
            let _ = writeln!(out, "\n{} ({})", t.name, t.rows.len());
            out.push_str(&render_table(t));
        }
        for w in &self.warnings {
            let _ = writeln!(out, "warning: {w}");
        }
        out
    }
}

/// A cell as JSON: an integer or a finite decimal number as a number, anything else as
/// the text people see.
fn typed(cell: &str) -> serde_json::Value {
    if let Ok(i) = cell.parse::<i64>() {
        return i.into();
    }
    if let Ok(u) = cell.parse::<u64>() {
        return u.into();
    }
    match cell.parse::<f64>() {
        Ok(f) if f.is_finite() && !cell.contains(['e', 'E', 'i', 'n', 'N']) => f.into(),
        _ => cell.into(),
    }
}

/// Columns padded to their widest cell; numbers right-aligned.
fn render_table(table: &Table) -> String {
    let mut widths: Vec<usize> = table.columns.iter().map(|c| c.chars().count()).collect();
    for r in &table.rows {
        for (i, c) in r.iter().enumerate() {
            if i < widths.len() {
                widths[i] = widths[i].max(c.chars().count());
            }
        }
    }
    let mut out = String::new();
    let line = |cells: &[String], out: &mut String| {
        let mut parts = Vec::new();
        for (i, c) in cells.iter().enumerate() {
            let w = widths.get(i).copied().unwrap_or(0);
            let numeric = !c.is_empty()
                && c.chars()
                    .all(|ch| ch.is_ascii_digit() || matches!(ch, '.' | ',' | '-'));
            parts.push(if numeric {
                format!("{c:>w$}")
            } else {
                format!("{c:<w$}")
            });
        }
        let _ = writeln!(out, "  {}", parts.join("  ").trim_end());
    };
    line(&table.columns, &mut out);
    for r in &table.rows {
        line(r, &mut out);
    }
    out
}

/// `1.5 MiB`, `312 KiB`, `96 B` (the formats' descriptions use the same).
pub use assetc::formats::describe::size;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_tables_read_well() {
        assert_eq!(size(96), "96 B");
        assert_eq!(size(1536), "1.5 KiB");
        assert_eq!(size(3 << 20), "3.0 MiB");
        let mut d = Doc::new("t");
        d.table("rows", &["name", "n"])
            .row(vec!["a".into(), "100".into()]);
        let text = d.render();
        assert!(text.contains("  name  n\n  a     100\n"), "{text}");
    }
}
