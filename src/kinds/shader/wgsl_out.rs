//! One entry point as a plain WGSL module (`[shader] outputs = ["wgsl"]`): the module
//! (linked from a WESL package, composed by naga_oil, or a plain source) cut down to what
//! the entry point reaches, written by naga's WGSL backend, and read back by the `.wgsl`
//! validator (naga's front end and validator) before it is kept.
//!
//! `override` declarations stay as they are, unlike in SPIR-V: WebGPU sets them at pipeline
//! creation (`GPUProgrammableStage.constants`).

#[derive(Debug, thiserror::Error)]
pub enum WgslOutError {
    #[error("cut down to this entry point, the module is invalid: {0}")]
    Invalid(String),
    #[error("naga's WGSL writer cannot write it: {0}")]
    Write(#[from] naga::back::wgsl::Error),
    #[error(
        "the WGSL naga wrote for it does not read back (a bug in naga's WGSL writer, please \
         report it with this file): {0}"
    )]
    Reread(#[from] crate::formats::wgsl::WgslError),
}

/// The WGSL of `one`, a module cut down to one entry point (`one_entry_point`), and
/// `info`, its validation.
pub fn write(one: &naga::Module, info: &naga::valid::ModuleInfo) -> Result<String, WgslOutError> {
    let text = naga::back::wgsl::write_string(one, info, naga::back::wgsl::WriterFlags::empty())?;
    crate::formats::wgsl::read(text.as_bytes())?;
    Ok(text)
}
