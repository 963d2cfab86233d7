//! Searches sixteen bytes at a time: the next byte of a small set in a
//! text (the import scan's inner loops, the escapes of a JSON string), and
//! the padded chunks the checks of ids look at.
//!
//! The scan reads every byte of every shared module (a lexer's token
//! tables are most of pygments' source): where its loop looked at one byte
//! at a time through a table, a vector compare classifies sixteen, and the
//! loop only stops where something happens. `memchr` does the same for up
//! to three bytes, but the code of a logical line stops at twelve, and a
//! string is usually short enough that `memchr`'s set-up costs more than
//! its search.
//!
//! On x86-64 (SSE2 is part of the baseline) the searches use vector
//! compares; elsewhere they are plain loops over the same sets, which the
//! tests also check the vector ones against.

/// Whether `c` is a byte where a logical line's code stops: a bracket, a
/// quote, `#`, `\`, or a line end.
pub(crate) fn is_code_stop(c: u8) -> bool {
    matches!(
        c,
        b'(' | b')' | b'[' | b']' | b'{' | b'}' | b'\'' | b'"' | b'#' | b'\\' | b'\r' | b'\n'
    )
}

/// The index of the first code stop ([`is_code_stop`]) at or after `from`.
pub(crate) fn next_code_stop(text: &[u8], from: usize) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    let chunk_stops = sse2::code_stops;
    #[cfg(not(target_arch = "x86_64"))]
    let chunk_stops = |_: &[u8]| 0;
    first_stop(text, from, chunk_stops, is_code_stop, false)
}

/// The index of the first byte at or after `from` that is one of `stops`.
pub(crate) fn next_of3(text: &[u8], from: usize, stops: [u8; 3]) -> Option<usize> {
    let [one, two, three] = stops;
    #[cfg(target_arch = "x86_64")]
    let chunk_stops = |chunk: &[u8]| sse2::any_of3(chunk, stops);
    #[cfg(not(target_arch = "x86_64"))]
    let chunk_stops = |_: &[u8]| 0;
    first_stop(
        text,
        from,
        chunk_stops,
        |c| c == one || c == two || c == three,
        false,
    )
}

/// Whether `c` must be escaped in a JSON string: a control character,
/// `"` or `\`.
pub(crate) fn is_json_escape(c: u8) -> bool {
    c < 0x20 || c == b'"' || c == b'\\'
}

/// The index of the first byte at or after `from` that a JSON string
/// escapes ([`is_json_escape`]).
pub(crate) fn next_json_escape(text: &[u8], from: usize) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    let chunk_stops = sse2::json_escapes;
    #[cfg(not(target_arch = "x86_64"))]
    let chunk_stops = |_: &[u8]| 0;
    first_stop(text, from, chunk_stops, is_json_escape, true)
}

/// The index of the first byte at or after `from` that `stop` accepts:
/// sixteen bytes at a time through `chunk_stops` (one bit per stop among a
/// chunk's bytes) on x86-64, the rest byte by byte, or, with `padded_tail`,
/// as one more chunk (cheaper where the search usually runs to the end, as
/// a JSON string's does; dearer where a stop is usually a few bytes away,
/// as in the import scan). Elsewhere every byte goes through `stop`.
fn first_stop(
    text: &[u8],
    from: usize,
    chunk_stops: impl Fn(&[u8]) -> u32,
    stop: impl Fn(u8) -> bool,
    padded_tail: bool,
) -> Option<usize> {
    let mut at = from;
    if cfg!(target_arch = "x86_64") {
        while let Some(chunk) = text.get(at..at + 16) {
            let mask = chunk_stops(chunk);
            if mask != 0 {
                return Some(at + mask.trailing_zeros() as usize);
            }
            at += 16;
        }
        if padded_tail {
            // The last few bytes, padded to a chunk: only their bits count.
            let rest = text.len().checked_sub(at).filter(|&n| n > 0)?;
            let mask = chunk_stops(&padded_chunk(text, at)) & ((1 << rest) - 1);
            return (mask != 0).then(|| at + mask.trailing_zeros() as usize);
        }
    }
    scalar_position(text, at, stop)
}

/// The index of the first byte at or after `from` that `stop` accepts.
fn scalar_position(b: &[u8], from: usize, stop: impl Fn(u8) -> bool) -> Option<usize> {
    b.get(from..)?
        .iter()
        .position(|&c| stop(c))
        .map(|at| from + at)
}

/// The sixteen bytes of `bytes` from `at`, the last few padded with `a`
/// (a byte no check looks for) past its end: the chunk a fixed-array loop,
/// which the compiler makes a few vector instructions, is given.
pub(crate) fn padded_chunk(bytes: &[u8], at: usize) -> [u8; 16] {
    if let Some(chunk) = bytes.get(at..at + 16) {
        chunk.try_into().unwrap_or([b'a'; 16])
    } else {
        let rest = bytes.get(at..).unwrap_or_default();
        let mut chunk = [b'a'; 16];
        chunk[..rest.len()].copy_from_slice(rest);
        chunk
    }
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };

    // SAFETY (every `unsafe` below): the intrinsics need SSE2, which is
    // part of the x86-64 baseline (the target enables it, so the calls are
    // inlined as single instructions), and the load reads sixteen bytes
    // that the chunk holds, with no alignment requirement.

    fn load(chunk: &[u8]) -> __m128i {
        assert!(chunk.len() >= 16);
        unsafe { _mm_loadu_si128(chunk.as_ptr().cast()) }
    }

    #[allow(clippy::cast_possible_wrap)]
    fn splat(byte: u8) -> __m128i {
        unsafe { _mm_set1_epi8(byte as i8) }
    }

    fn eq(v: __m128i, byte: u8) -> __m128i {
        unsafe { _mm_cmpeq_epi8(v, splat(byte)) }
    }

    /// `v & mask == byte`, per byte.
    fn eq_masked(v: __m128i, mask: u8, byte: u8) -> __m128i {
        unsafe { _mm_cmpeq_epi8(_mm_and_si128(v, splat(mask)), splat(byte)) }
    }

    fn or(a: __m128i, b: __m128i) -> __m128i {
        unsafe { _mm_or_si128(a, b) }
    }

    #[allow(clippy::cast_sign_loss)]
    fn bits(v: __m128i) -> u32 {
        unsafe { _mm_movemask_epi8(v) as u32 }
    }

    /// One bit per code stop among the first sixteen bytes of `chunk`.
    pub(super) fn code_stops(chunk: &[u8]) -> u32 {
        let v = load(chunk);
        // `&` 0xFE pairs `(` with `)` and `"` with `#`; `&` 0xDF pairs
        // `[` with `{` and `]` with `}` (no other byte maps onto them).
        let brackets = or(
            eq_masked(v, 0xFE, b'('),
            or(eq_masked(v, 0xDF, b'['), eq_masked(v, 0xDF, b']')),
        );
        let quotes = or(eq_masked(v, 0xFE, b'"'), eq(v, b'\''));
        let rest = or(eq(v, b'\\'), or(eq(v, b'\n'), eq(v, b'\r')));
        bits(or(brackets, or(quotes, rest)))
    }

    /// One bit per byte a JSON string escapes among the first sixteen
    /// bytes of `chunk`: `& 0xE0 == 0` is a control character.
    pub(super) fn json_escapes(chunk: &[u8]) -> u32 {
        let v = load(chunk);
        bits(or(eq_masked(v, 0xE0, 0), or(eq(v, b'"'), eq(v, b'\\'))))
    }

    /// One bit per byte equal to one of `stops` among the first sixteen
    /// bytes of `chunk`.
    pub(super) fn any_of3(chunk: &[u8], [one, two, three]: [u8; 3]) -> u32 {
        let v = load(chunk);
        bits(or(eq(v, one), or(eq(v, two), eq(v, three))))
    }
}

#[cfg(test)]
mod tests {
    use super::{
        is_code_stop, is_json_escape, next_code_stop, next_json_escape, next_of3, scalar_position,
    };

    /// Every byte value, at every place of texts longer than two chunks:
    /// the vector searches find what the byte-at-a-time ones find.
    #[test]
    fn the_searches_agree_with_a_byte_at_a_time() {
        for byte in 0..=u8::MAX {
            for len in [1, 15, 16, 17, 31, 33, 40] {
                for at in 0..len {
                    let mut text = vec![b'a'; len];
                    text[at] = byte;
                    for from in [0, 1, at, len - 1] {
                        assert_eq!(
                            next_code_stop(&text, from),
                            scalar_position(&text, from, is_code_stop),
                            "{byte:#x} at {at} of {len} from {from}"
                        );
                        assert_eq!(
                            next_json_escape(&text, from),
                            scalar_position(&text, from, is_json_escape),
                            "{byte:#x} at {at} of {len} from {from}"
                        );
                        assert_eq!(
                            next_of3(&text, from, [b'"', b'\\', b'\n']),
                            scalar_position(&text, from, |c| matches!(c, b'"' | b'\\' | b'\n')),
                            "{byte:#x} at {at} of {len} from {from}"
                        );
                    }
                }
            }
        }
        assert_eq!(next_code_stop(b"abc", 3), None);
        assert_eq!(next_code_stop(b"abc", 7), None);
    }

    #[test]
    fn code_stops_are_the_twelve_bytes() {
        let stops: Vec<u8> = (0..=u8::MAX).filter(|&c| is_code_stop(c)).collect();
        assert_eq!(stops, b"\n\r\"#'()[\\]{}".to_vec());
    }
}
