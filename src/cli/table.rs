//! A small document model for `inspect` and `info`: key/value facts, tables and warnings,
//! printed as aligned text for people or as one JSON object with `--json`.

use assetc::formats::describe;
use serde::Serialize;
use std::fmt::Write;

#[derive(Debug, Default, Serialize)]
pub struct Doc {
    pub title: String,
    /// Label and value, in order.
    pub facts: Vec<(String, String)>,
    pub tables: Vec<Table>,
    pub warnings: Vec<String>,
}

#[derive(Debug, Default, Serialize)]
pub struct Table {
    pub name: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Doc {
    pub fn new(title: impl Into<String>) -> Self {
        Self {
            title: title.into(),
            ..Default::default()
        }
    }
    pub fn fact(&mut self, label: &str, value: impl ToString) {
        self.facts.push((label.to_string(), value.to_string()));
    }
    pub fn table(&mut self, name: &str, columns: &[&str]) -> &mut Table {
        self.tables.push(Table {
            name: name.to_string(),
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows: Vec::new(),
        });
        self.tables.last_mut().expect("just pushed")
    }

    /// The document as typed JSON: facts as one object, each table's rows as objects
    /// keyed by column, and every value that is a plain number as a JSON number (sizes
    /// with units, names and lists stay strings).
    pub fn to_json(&self) -> serde_json::Value {
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
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{}", self.title);
        let width = self.facts.iter().map(|(l, _)| l.len()).max().unwrap_or(0);
        for (label, value) in &self.facts {
            let _ = writeln!(out, "  {label:<width$}  {value}");
        }
        for t in self.tables.iter().filter(|t| !t.rows.is_empty()) {
            let _ = writeln!(out, "\n{} ({})", t.name, t.rows.len());
            out.push_str(&t.render());
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

impl Table {
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// Columns padded to their widest cell; numbers right-aligned.
    pub fn render(&self) -> String {
        let mut widths: Vec<usize> = self.columns.iter().map(|c| c.chars().count()).collect();
        for r in &self.rows {
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
        line(&self.columns, &mut out);
        for r in &self.rows {
            line(r, &mut out);
        }
        out
    }
}

/// `1.5 MiB`, `312 KiB`, `96 B` (the formats' descriptions use the same).
pub use assetc::formats::describe::size;

/// A format's description (`inspect`), to print or turn into JSON.
impl From<describe::Document> for Doc {
    fn from(d: describe::Document) -> Self {
        Self {
            title: d.title,
            facts: d.facts,
            tables: d.tables.into_iter().map(Table::from).collect(),
            warnings: d.warnings,
        }
    }
}

impl From<describe::Table> for Table {
    fn from(t: describe::Table) -> Self {
        Self {
            name: t.name,
            columns: t.columns,
            rows: t.rows,
        }
    }
}

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
