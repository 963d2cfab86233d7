//! The global allocator: mimalloc, called as a C program calls it.
//!
//! The `mimalloc` crate's allocator passes every Rust allocation through
//! `mi_malloc_aligned`, whose alignment checks cost more than the
//! allocation itself on a cold collection (packaging's 17,000 parameter
//! sets allocate about 200,000 small values). mimalloc's plain
//! `mi_malloc` already aligns every block to 16 bytes (`MI_MAX_ALIGN_SIZE`)
//! or, below 16 bytes, to its power-of-two size class, which is all a
//! Rust layout of alignment 16 or less asks; larger alignments keep the
//! aligned entry points.
//!
//! Blocks of [`LARGE`] bytes or more are mapped from the kernel on their
//! own, on Linux, as glibc's `malloc` does from the same size: unmapped
//! when freed and grown with `mremap`, which moves the pages instead of
//! copying them. In mimalloc such a block is a page of its arena, kept
//! mapped for the purge delay once freed (see `main`), and a large
//! collection makes and frees a few dozen of them in that time: a large
//! module's items, grown and then copied into its items, and its fragment.
//! On packaging's cold `collect --json` (18,060 items in one module) the
//! median peak memory fell from 26.2–27.0 MiB (the highest of 31 runs
//! 31.3) to 22.4–23.2 MiB (highest 24.2), at the same CPU time
//! (bench/README.md, "Stop 34").

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys::{
    mi_free, mi_malloc, mi_malloc_aligned, mi_realloc, mi_realloc_aligned, mi_zalloc,
    mi_zalloc_aligned,
};

/// The alignment `mi_malloc` gives every block of its size or larger.
const PLAIN_ALIGN: usize = 16;

/// From this size a block is mapped on its own ([`large`]); glibc's
/// default threshold for the same.
const LARGE: usize = 128 * 1024;

/// Blocks mapped from the kernel on their own: whether a layout is one is
/// decided by its size alone, so that `dealloc` and `realloc`, given the
/// layout the block was made with, know where it came from.
#[cfg(target_os = "linux")]
mod large {
    use std::alloc::Layout;

    /// The alignment of a mapping.
    const PAGE: usize = 4096;

    #[inline]
    pub(super) fn is_large(layout: Layout) -> bool {
        layout.size() >= super::LARGE && layout.align() <= PAGE
    }

    /// Up to this size a new mapping is filled at once (see [`map`]).
    const POPULATED: usize = 64 << 20;

    /// A new mapping of `size` bytes (zeroed by the kernel), or null. Its
    /// pages are made at once (`MAP_POPULATE`) up to [`POPULATED`]: a
    /// large block is filled soon after it is made (a vector sized for
    /// its items, a buffer for a fragment), and one call makes its pages
    /// for less than a fault per page would (packaging's cold collection,
    /// median of 31 runs: 66.5 ms of CPU without, 62.7 ms with, the peak
    /// memory within 0.6 MiB).
    pub(super) fn map(size: usize) -> *mut u8 {
        let populate = if size <= POPULATED {
            libc::MAP_POPULATE
        } else {
            0
        };
        // SAFETY: an anonymous private mapping at an address the kernel
        // chooses touches no existing memory.
        let block = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                size,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | populate,
                -1,
                0,
            )
        };
        if block == libc::MAP_FAILED {
            std::ptr::null_mut()
        } else {
            block.cast()
        }
    }

    /// Unmaps a block [`map`] or [`remap`] gave for `size` bytes.
    ///
    /// # Safety
    /// `block` is such a block, not used after.
    pub(super) unsafe fn unmap(block: *mut u8, size: usize) {
        // SAFETY: as the caller promises.
        unsafe { libc::munmap(block.cast(), size) };
    }

    /// Resizes a block [`map`] gave for `size` bytes to `new_size`,
    /// moving its pages where it cannot grow in place; null when the
    /// kernel refuses (the block is then untouched).
    ///
    /// # Safety
    /// `block` is such a block; on success it is not used after.
    pub(super) unsafe fn remap(block: *mut u8, size: usize, new_size: usize) -> *mut u8 {
        // SAFETY: as the caller promises.
        let moved = unsafe { libc::mremap(block.cast(), size, new_size, libc::MREMAP_MAYMOVE) };
        if moved == libc::MAP_FAILED {
            std::ptr::null_mut()
        } else {
            moved.cast()
        }
    }
}

/// Elsewhere every block is mimalloc's.
#[cfg(not(target_os = "linux"))]
mod large {
    use std::alloc::Layout;

    #[inline]
    pub(super) fn is_large(_layout: Layout) -> bool {
        false
    }

    pub(super) fn map(_size: usize) -> *mut u8 {
        std::ptr::null_mut()
    }

    pub(super) unsafe fn unmap(_block: *mut u8, _size: usize) {}

    pub(super) unsafe fn remap(_block: *mut u8, _size: usize, _new_size: usize) -> *mut u8 {
        std::ptr::null_mut()
    }
}

/// mimalloc, through its plain entry points where the alignment allows.
pub(crate) struct MiMalloc;

// SAFETY: each method forwards to the mimalloc function of the same
// contract; a layout's size is a multiple of its alignment, so a block of
// at least that size from `mi_malloc`/`mi_realloc` is aligned for it when
// the alignment is at most 16.
unsafe impl GlobalAlloc for MiMalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if large::is_large(layout) {
            return large::map(layout.size());
        }
        // SAFETY: as for the impl.
        unsafe {
            if layout.align() <= PLAIN_ALIGN {
                mi_malloc(layout.size()).cast()
            } else {
                mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if large::is_large(layout) {
            // A new mapping is zeroed.
            return large::map(layout.size());
        }
        // SAFETY: as for the impl.
        unsafe {
            if layout.align() <= PLAIN_ALIGN {
                mi_zalloc(layout.size()).cast()
            } else {
                mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if large::is_large(layout) {
            // SAFETY: a block of a large layout was mapped for its size.
            unsafe { large::unmap(ptr, layout.size()) };
            return;
        }
        // SAFETY: `ptr` came from this allocator.
        unsafe { mi_free(ptr.cast::<c_void>()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `GlobalAlloc::realloc`'s contract: `new_size`, rounded up
        // to the alignment, does not overflow.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        match (large::is_large(layout), large::is_large(new_layout)) {
            // SAFETY: a block of a large layout was mapped for its size.
            (true, true) => return unsafe { large::remap(ptr, layout.size(), new_size) },
            (false, false) => {}
            // Across the threshold: a new block, the bytes copied.
            _ => {
                // SAFETY: `new_layout` has a non-zero size (the contract);
                // `ptr` holds `layout.size()` bytes, and is freed once.
                unsafe {
                    let new = self.alloc(new_layout);
                    if !new.is_null() {
                        std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                        self.dealloc(ptr, layout);
                    }
                    return new;
                }
            }
        }
        // SAFETY: `ptr` came from this allocator with `layout`.
        unsafe {
            if layout.align() <= PLAIN_ALIGN {
                mi_realloc(ptr.cast::<c_void>(), new_size).cast()
            } else {
                mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{MiMalloc, LARGE, PLAIN_ALIGN};
    use std::alloc::{GlobalAlloc, Layout};

    /// Every size a Rust layout of alignment up to 16 can have, small and
    /// large, comes back aligned, including after growing and shrinking.
    #[test]
    fn blocks_are_aligned_as_their_layout_asks() {
        let mut align = 1;
        while align <= 64 {
            for multiple in [1, 2, 3, 5, 7, 24, 100, 5000, 70_000, 200_000] {
                let size = align * multiple;
                let layout = Layout::from_size_align(size, align).unwrap();
                // SAFETY: a non-zero size; every block is freed once.
                unsafe {
                    let block = MiMalloc.alloc(layout);
                    assert!(!block.is_null());
                    assert_eq!(block as usize % align, 0, "{size} bytes, align {align}");
                    block.write_bytes(0xAB, size);
                    let grown = MiMalloc.realloc(block, layout, size * 3);
                    assert_eq!(grown as usize % align, 0, "grown {size}, align {align}");
                    assert_eq!(*grown.add(size - 1), 0xAB);
                    MiMalloc.dealloc(grown, Layout::from_size_align(size * 3, align).unwrap());
                    let zeroed = MiMalloc.alloc_zeroed(layout);
                    assert_eq!(zeroed as usize % align, 0);
                    assert!((0..size).all(|i| *zeroed.add(i) == 0));
                    MiMalloc.dealloc(zeroed, layout);
                }
            }
            align *= 2;
        }
        assert!(PLAIN_ALIGN >= std::mem::align_of::<u128>());
    }

    /// Blocks grown and shrunk across [`LARGE`] and beyond it keep their
    /// bytes, whichever allocator each size belongs to.
    #[test]
    fn blocks_keep_their_bytes_across_the_large_threshold() {
        let sizes = [
            100,
            LARGE - 1,
            LARGE,
            LARGE + 1,
            3 * LARGE + 17,
            40 * LARGE,
            LARGE / 2,
            7,
        ];
        let layout = |size| Layout::from_size_align(size, 8).unwrap();
        // The byte a block holds at `i`.
        let byte = |i: usize| u8::try_from(i % 251).unwrap();
        // SAFETY: non-zero sizes; each block is resized from the layout
        // it has, and freed once.
        unsafe {
            let mut size = 64;
            let mut block = MiMalloc.alloc(layout(size));
            for i in 0..size {
                *block.add(i) = byte(i);
            }
            for &next in &sizes {
                block = MiMalloc.realloc(block, layout(size), next);
                assert!(!block.is_null());
                assert_eq!(block as usize % 8, 0);
                let kept = size.min(next);
                assert!(
                    (0..kept).all(|i| *block.add(i) == byte(i)),
                    "{size} -> {next}"
                );
                for i in kept..next {
                    *block.add(i) = byte(i);
                }
                size = next;
            }
            MiMalloc.dealloc(block, layout(size));
            let zeroed = MiMalloc.alloc_zeroed(layout(5 * LARGE));
            assert!((0..5 * LARGE).all(|i| *zeroed.add(i) == 0));
            MiMalloc.dealloc(zeroed, layout(5 * LARGE));
            // A large alignment stays with mimalloc's aligned entry points.
            let wide = Layout::from_size_align(2 * LARGE, 8192).unwrap();
            let block = MiMalloc.alloc(wide);
            assert_eq!(block as usize % 8192, 0);
            MiMalloc.dealloc(block, wide);
        }
    }
}
