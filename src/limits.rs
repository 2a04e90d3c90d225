//! `[limits]` of build.toml: what one asset may cost the machine that builds it.
//!
//! Every kind estimates, from a source's header and before decoding it, the memory the
//! source will take at its peak ([`MemoryNeed`]); one over [`Limits::asset_memory`] fails
//! its asset with both numbers instead of taking the machine's memory (a 560 KB PNG can
//! declare 12,000 x 12,000 pixels). The estimates are per kind, next to the code whose
//! buffers they count; docs/performance.md records what was measured against them.

use serde::Deserialize;
use toml::Spanned;

/// The default budget: an 8192 x 8192 texture with its mip chain and encoder buffers fits
/// (34 bytes a pixel, 2.1 GiB, docs/performance.md), as game trees hold them; a
/// 12,000 x 12,000 one (4.6 GiB) does not. Two such assets at once fit a 16 GiB machine.
pub const DEFAULT_ASSET_MEMORY: u64 = 4 << 30;
/// Below this a budget could not build even the samples; a typo (`asset_memory = 1024`
/// meant as MiB) is refused rather than failing every asset.
pub const MIN_ASSET_MEMORY: u64 = 16 << 20;

/// The limits one build applies to every asset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most bytes of memory one asset may need at its peak, as its kind estimates them.
    pub asset_memory: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            asset_memory: DEFAULT_ASSET_MEMORY,
        }
    }
}

/// `[limits]` as written in build.toml.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsTable {
    /// Most bytes of memory one asset may need (default 4 GiB, 4294967296).
    pub asset_memory: Option<Spanned<u64>>,
}

impl LimitsTable {
    /// The limits this table sets over the defaults, or why a value is refused (with
    /// where it stands in the file).
    pub fn limits(&self) -> Result<Limits, (std::ops::Range<usize>, String)> {
        let mut limits = Limits::default();
        if let Some(memory) = &self.asset_memory {
            let bytes = *memory.get_ref();
            if bytes < MIN_ASSET_MEMORY {
                return Err((
                    memory.span(),
                    format!(
                        "[limits] asset_memory is in bytes and must be at least \
                         {MIN_ASSET_MEMORY} (16 MiB), got {bytes}"
                    ),
                ));
            }
            limits.asset_memory = bytes;
        }
        Ok(limits)
    }
}

/// Why an asset is refused before it is decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverBudget {
    pub needed: u64,
    pub limit: u64,
    pub detail: String,
}

impl std::fmt::Display for OverBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "needs about {} of memory to build ({}), more than the {} one asset may use \
             ([limits] asset_memory in build.toml raises it)",
            mib(self.needed),
            self.detail,
            mib(self.limit)
        )
    }
}

impl std::error::Error for OverBudget {}

impl Limits {
    /// Refuses a need over [`Self::asset_memory`]; `detail` says what was counted.
    pub fn admit(&self, needed: u64, detail: impl FnOnce() -> String) -> Result<(), OverBudget> {
        if needed <= self.asset_memory {
            return Ok(());
        }
        Err(OverBudget {
            needed,
            limit: self.asset_memory,
            detail: detail(),
        })
    }
}

/// Bytes as MiB with the exact count, so both the rough size and the number to write in
/// build.toml are there.
fn mib(bytes: u64) -> String {
    format!("{} MiB ({bytes} bytes)", bytes.div_ceil(1 << 20))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_need_over_the_budget_names_both_numbers() {
        let limits = Limits {
            asset_memory: 64 << 20,
        };
        assert_eq!(limits.admit(64 << 20, String::new), Ok(()));
        let e = limits
            .admit((64 << 20) + 1, || "4096x4096 pixels".into())
            .unwrap_err()
            .to_string();
        assert!(e.contains("65 MiB (67108865 bytes)"), "{e}");
        assert!(e.contains("64 MiB (67108864 bytes)"), "{e}");
        assert!(
            e.contains("4096x4096 pixels") && e.contains("asset_memory"),
            "{e}"
        );
    }

    #[test]
    fn the_table_refuses_budgets_too_small_to_mean_bytes() {
        let table: LimitsTable = toml::from_str("asset_memory = 1024").unwrap();
        let (span, message) = table.limits().unwrap_err();
        assert_eq!(span, 15..19);
        assert!(message.contains("at least 16777216"), "{message}");
        let table: LimitsTable = toml::from_str("asset_memory = 2147483648").unwrap();
        assert_eq!(table.limits().unwrap().asset_memory, 2 << 30);
        assert_eq!(LimitsTable::default().limits().unwrap(), Limits::default());
    }
}
