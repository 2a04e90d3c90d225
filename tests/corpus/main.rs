//! The corpus tests (`../shared/corpus`, or `ASSETC_CORPUS`): a binary apart from
//! `tests/it/` because `.ci/run` runs them on their own against the corpus
//! (`cargo test --test corpus`). They share this process, as in `tests/it/`.

#[path = "../common/mod.rs"]
mod common;

mod corpus_build;
mod corpus_invalid;
