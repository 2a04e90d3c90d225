//! Textures shared between assets, encoded once by whichever asset needs them first, while
//! the assets are still compiling: each asset finishes (and is reported) as soon as its
//! own textures are ready, instead of every asset waiting for one texture pass at the end.

use super::asset::{texture_rel_path, TextureRequest};
use super::code::Failure;
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
    pub fn new(output: &'a Path, vouched: &'a (dyn Fn(&str) -> bool + Sync)) -> Self {
        Self {
            output,
            vouched,
            slots: Mutex::new(BTreeMap::new()),
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
    /// yet; waits for ones another worker is encoding. `on_new(n)` is called once with the
    /// number of textures first requested here, `on_done(label)` after each one encoded.
    /// Returns the first error among them, if any.
    ///
    /// Safe to block here: the encoder never runs rayon work, so a worker encoding a
    /// texture cannot pick up another asset that waits for that same texture.
    pub fn ensure(
        &self,
        requests: &[TextureRequest],
        on_new: impl FnOnce(usize),
        mut on_done: impl FnMut(&str),
    ) -> Result<Ensured, Failure> {
        let mut mine = std::collections::BTreeSet::new();
        let slots: Vec<(usize, Arc<OnceLock<TextureResult>>)> = {
            let mut map = self.slots.lock().unwrap_or_else(|e| e.into_inner());
            requests
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let slot = map.entry(r.job.id).or_insert_with(|| {
                        mine.insert(r.job.id);
                        Arc::default()
                    });
                    (i, slot.clone())
                })
                .collect()
        };
        let new = mine.len();
        on_new(new);
        let mut first_error = None;
        let mut done = 0;
        for (i, slot) in slots {
            let req = &requests[i];
            let result = slot.get_or_init(|| self.encode(req));
            if mine.remove(&req.job.id) {
                done += 1;
                on_done(&req.job.label);
            }
            if let (Err(e), None) = (result, &first_error) {
                first_error = Some(e.clone());
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(Ensured { new, done }),
        }
    }

    fn encode(&self, req: &TextureRequest) -> TextureResult {
        let rel = texture_rel_path(req.job.id);
        if (self.vouched)(&rel) && self.output.join(&rel).is_file() {
            return Ok(None);
        }
        super::guard::encode_texture_guarded(req).map(Some)
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
