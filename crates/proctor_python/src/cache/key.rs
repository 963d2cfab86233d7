//! The hashes that decide whether a cached result still holds: a file's
//! content hash, the context hash of a whole collection (everything a
//! module's result may depend on besides its own bytes) and the key of one
//! module in that context.

use std::hash::Hasher as _;
use std::path::Path;

use siphasher::sip128::{Hasher128 as _, SipHasher13};

use super::store::{Hash, FORMAT};
use crate::settings::CollectSettings;

/// A 128-bit hasher whose output is stable across runs and builds.
pub(crate) struct Hasher(SipHasher13);

impl Hasher {
    pub(crate) fn new() -> Self {
        let mut hasher = Hasher(SipHasher13::new());
        hasher.str(FORMAT);
        hasher
    }

    /// Adds `bytes`, length-prefixed, so that consecutive fields cannot
    /// run into each other.
    pub(crate) fn bytes(&mut self, bytes: &[u8]) {
        self.0.write_u64(bytes.len() as u64);
        self.0.write(bytes);
    }

    pub(crate) fn str(&mut self, text: &str) {
        self.bytes(text.as_bytes());
    }

    pub(crate) fn path(&mut self, path: &Path) {
        use std::os::unix::ffi::OsStrExt;
        self.bytes(path.as_os_str().as_bytes());
    }

    pub(crate) fn hash(&mut self, hash: Hash) {
        self.0.write_u128(hash);
    }

    pub(crate) fn finish(&self) -> Hash {
        self.0.finish128().as_u128()
    }
}

/// The content hash of what reading a file gave: its bytes, or the reason
/// it could not be read (which collection reports).
pub(crate) fn content(read: &Result<Vec<u8>, String>) -> Hash {
    let mut hasher = Hasher::new();
    match read {
        Ok(bytes) => {
            // The bytes through XXH3 (128 bits), many times faster than
            // SipHash over a file's megabytes; the context's few fields
            // keep `Hasher`.
            hasher.str("ok");
            hasher.hash(xxhash_rust::xxh3::xxh3_128(bytes));
        }
        Err(message) => {
            hasher.str("error");
            hasher.str(message);
        }
    }
    hasher.finish()
}

/// This build of proctor's identity as text, computed once per process:
/// stamps record what this build derived from a file (its imports), so
/// another build does not read them.
pub(crate) fn build_text() -> &'static str {
    static BUILD: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    BUILD.get_or_init(|| {
        let mut hasher = Hasher::new();
        build_identity(&mut hasher);
        format!("{:032x}", hasher.finish())
    })
}

/// What identifies this build of proctor: its version and its executable
/// (size and modification time), so that a rebuilt binary never reads
/// results an older one computed.
fn build_identity(hasher: &mut Hasher) {
    use std::os::unix::fs::MetadataExt;
    hasher.str(env!("CARGO_PKG_VERSION"));
    match std::env::current_exe().and_then(std::fs::metadata) {
        Ok(meta) => {
            hasher.str(&format!(
                "{}:{}:{}",
                meta.size(),
                meta.mtime(),
                meta.mtime_nsec()
            ));
        }
        Err(_) => hasher.str("unknown executable"),
    }
}

/// Starts the context hash: proctor's build, and the settings that shape
/// a module's items (the pytest and proctor configuration as resolved, the
/// target interpreter's import path and the top-level names it provides,
/// which name installed packages and their `.dist-info` versions).
pub(crate) fn context(settings: &CollectSettings) -> Hasher {
    let mut hasher = Hasher::new();
    build_identity(&mut hasher);
    let mut plain = settings.clone();
    // Neither changes a module's items: threads only the speed, the whole
    // suite only which files discovery finds (which is never cached).
    plain.threads = 0;
    plain.opt_in.whole_suite = false;
    plain.cache = None;
    let interpreter = plain.module_path.take();
    hasher.str(&format!("{plain:?}"));
    match interpreter {
        Some(path) => {
            hasher.str(&format!("{:?}", path.dirs));
            let mut tops: Vec<&String> = path.tops.iter().collect();
            tops.sort();
            for top in tops {
                hasher.str(top);
            }
        }
        None => hasher.str("no interpreter"),
    }
    hasher
}
