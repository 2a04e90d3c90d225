//! The build driver.
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {}
#[derive(Debug, Clone, Default)]
pub struct BuildReport {}
#[derive(Debug, Clone, Default)]
pub struct Builder {}
