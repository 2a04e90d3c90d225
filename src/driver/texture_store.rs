//! Textures shared between assets, encoded once by whichever asset needs them first, while
//! the assets are still compiling: each asset finishes (and is reported) as soon as its
//! own textures are ready, instead of every asset waiting for one texture pass at the end.

use super::code::{DiagnosticCode, Failure};
use crate::kinds::asset::{texture_rel_path, TextureRequest};
use crate::kinds::texture::image_memory;
use crate::limits::Limits;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

/// The encoded file, `None` when a file the cache vouches for already exists (textures are
/// content-addressed, so such a file is current), or the error naming the image.
pub type TextureResult = Result<Option<Vec<u8>>, Failure>;

pub struct TextureStore<'a> {
    output: &'a Path,
    /// Whether the cache vouches for an existing texture file (relative path): only such a
    /// file is reused; any other is encoded again, as after a killed build or `--no-cache`.
    vouched: &'a (dyn Fn(&str) -> bool + Sync),
    slots: Mutex<BTreeMap<u64, Arc<OnceLock<TextureResult>>>>,
    /// `[limits]`: a model's image over the memory budget fails before it is decoded.
    limits: Limits,
}

/// What one `ensure` call did, for progress.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Ensured {
    /// Textures this asset was the first to ask for.
    pub new: usize,
    /// Of those, how many this call encoded (or found on disk).
    pub done: usize,
}

impl<'a> TextureStore<'a> {
    pub fn new(
        output: &'a Path,
        vouched: &'a (dyn Fn(&str) -> bool + Sync),
        limits: Limits,
    ) -> Self {
        Self {
            output,
            vouched,
            slots: Mutex::new(BTreeMap::new()),
            limits,
        }
    }

    /// Gives the store a texture already encoded elsewhere (fetched from the remote
    /// cache), so that no asset encodes it again.
    pub fn seed(&self, id: u64, bytes: Vec<u8>) {
        let mut map = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        let slot = map.entry(id).or_default();
        let _ = slot.set(Ok(Some(bytes)));
    }

    /// Makes sure every texture of `requests` is encoded, encoding the ones nobody has
    /// yet, on every thread of the build's pool (an asset's textures are most of a clean
    /// build: FlightHelmet's 15 one after another left the other core idle); waits for
    /// ones another worker is encoding. `on_new(n)` is called once with the number of
    /// textures first requested here, `on_done(label)` after each one encoded (from the
    /// thread that encoded it). Returns the first error among them, in request order.
    ///
    /// Safe to block here: the encoder never runs rayon work, so a thread waits in a
    /// `OnceLock` only for a thread that is encoding, which waits for nothing; a thread
    /// that takes other work while it waits for this asset's textures is never inside an
    /// encode. Each texture's bytes depend on its request alone, never on which thread or
    /// asset encodes it.
    pub fn ensure(
        &self,
        requests: &[TextureRequest],
        on_new: impl FnOnce(usize),
        on_done: impl Fn(&str) + Sync,
    ) -> Result<Ensured, Failure> {
        use rayon::prelude::*;
        // Each request's slot, and whether this call put it in the store (a texture asked
        // for twice by one asset counts once).
        let slots: Vec<(Arc<OnceLock<TextureResult>>, bool)> = {
            let mut map = self.slots.lock().unwrap_or_else(|e| e.into_inner());
            requests
                .iter()
                .map(|r| {
                    let mut first = false;
                    let slot = map.entry(r.job.id).or_insert_with(|| {
                        first = true;
                        Arc::default()
                    });
                    (slot.clone(), first)
                })
                .collect()
        };
        let new = slots.iter().filter(|(_, first)| *first).count();
        on_new(new);
        // One texture per task: the encodes are few and long.
        let failed: Vec<Option<Failure>> = requests
            .par_iter()
            .zip(&slots)
            .with_max_len(1)
            .map(|(req, (slot, first))| {
                let result = slot.get_or_init(|| self.encode(req));
                if *first {
                    on_done(&req.job.label);
                }
                result.as_ref().err().cloned()
            })
            .collect();
        match failed.into_iter().flatten().next() {
            Some(e) => Err(e),
            None => Ok(Ensured { new, done: new }),
        }
    }

    fn encode(&self, req: &TextureRequest) -> TextureResult {
        let rel = texture_rel_path(req.job.id);
        if (self.vouched)(&rel) && self.output.join(&rel).is_file() {
            return Ok(None);
        }
        self.admit(req)?;
        super::guard::encode_texture_guarded(req).map(Some)
    }

    /// Refuses an image whose header declares more pixels than `[limits] asset_memory`
    /// can encode (the estimate a standalone texture's is held to), before decoding it.
    fn admit(&self, req: &TextureRequest) -> Result<(), Failure> {
        let mime = req.job.mime_type.as_deref();
        let Some((needed, (w, h))) = image_memory(&req.job.bytes, mime, false) else {
            return Ok(());
        };
        self.limits
            .admit(needed, || format!("{w}x{h} pixels"))
            .map_err(|e| {
                Failure::new(
                    DiagnosticCode::ResourceLimit,
                    format!("{}: {e}", req.job.label),
                )
            })
    }

    /// Every texture asked for, by id.
    pub fn into_results(self) -> BTreeMap<u64, TextureResult> {
        self.slots
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
            .into_iter()
            .filter_map(|(id, slot)| Arc::into_inner(slot)?.into_inner().map(|r| (id, r)))
            .collect()
    }
}
