//! Nothing: this package only names crates to fetch.
