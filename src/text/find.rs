//! Byte and substring search that never probes the CPU.
//!
//! memchr's generic entry points (`memchr::memchr`, `memmem::find`) ask std which
//! vector instructions the CPU has the first time they run. std asks the CPU
//! itself, with about eight `cpuid` instructions, and in a virtual machine each
//! one leaves the guest: 85-95 µs on the VM of our benchmarks, a tenth of what a
//! governed write may cost above the hook's no-op. The hook's paths search with
//! these instead: on `x86_64` memchr's SSE2 routines, which every `x86_64` CPU has, so
//! nothing needs asking; elsewhere memchr's portable routines.
//!
//! Each search is linear in the haystack: a needle of more than [`PAIR_MAX`]
//! bytes (a rule author's literal may be long) takes memchr's Two-Way search,
//! whose worst case is linear too; the SIMD pair search checks each candidate
//! position against the whole needle, so it is kept to short needles.

#[cfg(target_arch = "x86_64")]
use memchr::arch::x86_64::sse2;

/// The longest needle searched with the SIMD pair search.
const PAIR_MAX: usize = 32;

/// The first `needle` byte in `hay`.
pub fn byte(needle: u8, hay: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if let Some(one) = sse2::memchr::One::new(needle) {
        return one.find(hay);
    }
    memchr::arch::all::memchr::One::new(needle).find(hay)
}

/// The last `needle` byte in `hay`.
pub fn byte_rev(needle: u8, hay: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if let Some(one) = sse2::memchr::One::new(needle) {
        return one.rfind(hay);
    }
    memchr::arch::all::memchr::One::new(needle).rfind(hay)
}

/// How many `needle` bytes `hay` holds.
pub fn byte_count(needle: u8, hay: &[u8]) -> usize {
    #[cfg(target_arch = "x86_64")]
    if let Some(one) = sse2::memchr::One::new(needle) {
        return one.count(hay);
    }
    memchr::arch::all::memchr::One::new(needle).count(hay)
}

/// The positions of every `needle` byte in `hay`, in order.
pub fn byte_positions(needle: u8, hay: &[u8]) -> impl Iterator<Item = usize> + '_ {
    let mut from = 0;
    std::iter::from_fn(move || {
        let at = from + byte(needle, hay.get(from..)?)?;
        from = at + 1;
        Some(at)
    })
}

/// The first occurrence of `needle` in `hay` (an empty needle is found at 0).
pub fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    Finder::new(needle).find(hay)
}

/// The start of every occurrence of `needle` in `hay` that does not overlap
/// an earlier one, in order (an empty needle: none).
pub fn find_iter<'h, 'n>(hay: &'h [u8], needle: &'n [u8]) -> impl Iterator<Item = usize> + 'h
where
    'n: 'h,
{
    let finder = Finder::new(needle);
    let mut from = 0;
    std::iter::from_fn(move || {
        if needle.is_empty() {
            return None;
        }
        let at = from + finder.find(hay.get(from..)?)?;
        from = at + needle.len();
        Some(at)
    })
}

/// A needle prepared once for many haystacks.
pub struct Finder<'n> {
    needle: &'n [u8],
    how: How,
}

enum How {
    Empty,
    Byte(u8),
    #[cfg(target_arch = "x86_64")]
    Pair(sse2::packedpair::Finder),
    TwoWay(memchr::arch::all::twoway::Finder),
}

impl<'n> Finder<'n> {
    pub fn new(needle: &'n [u8]) -> Finder<'n> {
        let how = match needle {
            [] => How::Empty,
            [b] => How::Byte(*b),
            _ => Some(needle)
                .filter(|n| n.len() <= PAIR_MAX)
                .and_then(Self::pair)
                .unwrap_or_else(|| How::TwoWay(memchr::arch::all::twoway::Finder::new(needle))),
        };
        Finder { needle, how }
    }

    #[cfg(target_arch = "x86_64")]
    fn pair(needle: &[u8]) -> Option<How> {
        sse2::packedpair::Finder::new(needle).map(How::Pair)
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn pair(_needle: &[u8]) -> Option<How> {
        None
    }

    /// The first occurrence of the needle in `hay`.
    pub fn find(&self, hay: &[u8]) -> Option<usize> {
        match &self.how {
            How::Empty => Some(0),
            How::Byte(b) => byte(*b, hay),
            #[cfg(target_arch = "x86_64")]
            How::Pair(pair) if hay.len() >= pair.min_haystack_len() => pair.find(hay, self.needle),
            #[cfg(target_arch = "x86_64")]
            How::Pair(_) => {
                memchr::arch::all::twoway::Finder::new(self.needle).find(hay, self.needle)
            }
            How::TwoWay(two) => two.find(hay, self.needle),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every search here answers as memchr's own.
    #[test]
    fn searches_answer_as_memchr_does() {
        let long_needle = "ab".repeat(40);
        let hays: Vec<Vec<u8>> = vec![
            b"".to_vec(),
            b"a".to_vec(),
            b"import json\nimport os\nfrom x import y\n".to_vec(),
            "x".repeat(100).into_bytes(),
            format!("{}import{}", "y".repeat(70), "z".repeat(3)).into_bytes(),
            format!("{}{long_needle}", "ab".repeat(300)).into_bytes(),
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"
                .repeat(9)
                .into_bytes(),
            "é\n\nü\nimport\r\n".repeat(17).into_bytes(),
        ];
        let needles: Vec<&[u8]> = vec![
            b"",
            b"a",
            b"\n",
            b"import",
            b"ab",
            b"aaaaab",
            b"zzzz",
            b"import json\nimport os\nfrom x import y\n!",
            long_needle.as_bytes(),
        ];
        for hay in &hays {
            for needle in &needles {
                let what = format!(
                    "{:?} in {:?}",
                    String::from_utf8_lossy(needle),
                    String::from_utf8_lossy(hay)
                );
                assert_eq!(
                    find(hay, needle),
                    memchr::memmem::find(hay, needle),
                    "{what}"
                );
                let ours: Vec<usize> = find_iter(hay, needle).collect();
                let theirs: Vec<usize> = if needle.is_empty() {
                    Vec::new()
                } else {
                    memchr::memmem::find_iter(hay, needle).collect()
                };
                assert_eq!(ours, theirs, "{what}");
            }
            for b in [b'a', b'\n', b'z', 0xC3] {
                assert_eq!(byte(b, hay), memchr::memchr(b, hay));
                assert_eq!(byte_rev(b, hay), memchr::memrchr(b, hay));
                assert_eq!(byte_count(b, hay), memchr::memchr_iter(b, hay).count());
                let ours: Vec<usize> = byte_positions(b, hay).collect();
                assert_eq!(ours, memchr::memchr_iter(b, hay).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn a_long_needle_stays_linear() {
        // 4 MB of `a` against `a…ab` of 200 bytes: a pair search would compare
        // 200 bytes at each of 4 M positions; Two-Way does not.
        let hay = vec![b'a'; 4 << 20];
        let mut needle = vec![b'a'; 199];
        needle.push(b'b');
        assert_eq!(find(&hay, &needle), None);
    }
}
