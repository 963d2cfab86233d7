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

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys::{
    mi_free, mi_malloc, mi_malloc_aligned, mi_realloc, mi_realloc_aligned, mi_zalloc,
    mi_zalloc_aligned,
};

/// The alignment `mi_malloc` gives every block of its size or larger.
const PLAIN_ALIGN: usize = 16;

/// mimalloc, through its plain entry points where the alignment allows.
pub(crate) struct MiMalloc;

// SAFETY: each method forwards to the mimalloc function of the same
// contract; a layout's size is a multiple of its alignment, so a block of
// at least that size from `mi_malloc`/`mi_realloc` is aligned for it when
// the alignment is at most 16.
unsafe impl GlobalAlloc for MiMalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
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
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from this allocator.
        unsafe { mi_free(ptr.cast::<c_void>()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
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
    use super::{MiMalloc, PLAIN_ALIGN};
    use std::alloc::{GlobalAlloc, Layout};

    /// Every size a Rust layout of alignment up to 16 can have, small and
    /// large, comes back aligned, including after growing and shrinking.
    #[test]
    fn blocks_are_aligned_as_their_layout_asks() {
        let mut align = 1;
        while align <= 64 {
            for multiple in [1, 2, 3, 5, 7, 24, 100, 5000, 70_000] {
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
}
