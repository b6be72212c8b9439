//! mm/readahead.c: the folio layout a sequential read leaves in the page cache.
//!
//! `page_cache_ra_order()` with the folio order kept in `struct file_ra_state` (v6.17,
//! c4602f9fa77f "mm/readahead: store folio order in struct file_ra_state", the commit seed 003's
//! throughput collapse bisects to): each readahead round raises the order by 2, capped by the
//! mapping's maximum order and by `ilog2(ra->size)`, and later rounds **stay** at the largest
//! order reached. The window starts at the initial size and grows as `get_next_ra_size()` grows
//! it (x4 while below max/16, x2 while at most max/2, then max). Within a window, a folio's order
//! is lowered to the index's alignment and to what fits before the window's end.

/// The folios `(first page index, order)` a sequential read of `file_pages` pages leaves, and the
/// number of readahead I/Os (one per window).
pub fn sequential_readahead(
    file_pages: u64,
    init_pages: u64,
    max_pages: u64,
    max_order: u32,
) -> (Vec<(u64, u32)>, u64) {
    let (mut folios, mut ios) = (Vec::new(), 0);
    let (mut index, mut size, mut order) = (0u64, init_pages.min(max_pages), 0u32);
    while index < file_pages {
        ios += 1;
        let limit = (index + size).min(file_pages);
        while index < limit {
            folios.push((index, fit_order(index, limit, order)));
            index += 1 << folios.last().expect("just pushed").1;
        }
        size = next_ra_size(size, max_pages);
        order = (order + 2).min(max_order).min(size.ilog2());
    }
    (folios, ios)
}

/// The order `page_cache_ra_order()` allocates at `index`: at most `order`, aligned to the
/// index, and ending before `limit`.
fn fit_order(index: u64, limit: u64, order: u32) -> u32 {
    let mut o = if index == 0 { order } else { order.min(index.trailing_zeros()) };
    while index + (1 << o) > limit {
        o -= 1;
    }
    o
}

/// `get_next_ra_size()`.
fn next_ra_size(cur: u64, max: u64) -> u64 {
    if cur < max / 16 {
        4 * cur
    } else if cur <= max / 2 {
        2 * cur
    } else {
        max
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_order_ramps_and_stays_at_the_largest() {
        let (folios, ios) = sequential_readahead(4096, 8, 512, 9);
        assert_eq!(folios.iter().map(|f| 1u64 << f.1).sum::<u64>(), 4096, "the whole file is cached");
        assert!(ios > 1 && ios < 20, "{ios}");
        assert_eq!(folios.first().unwrap().1, 0);
        // Later windows stay at the largest order reached (each window's first folios are
        // lowered to its unaligned start, see docs/findings.md: order 9 is not reached with these sizes).
        let largest = folios.iter().map(|f| f.1).max().unwrap();
        assert!(largest >= 8, "the order ramps up to {largest}");
        let quarter = |q: u64| folios.iter().filter(|f| f.0 >= q * 1024 && f.0 < (q + 1) * 1024).map(|f| f.1).max();
        assert_eq!((quarter(1), quarter(2), quarter(3)), (Some(largest), Some(largest), Some(largest)), "{folios:?}");
        assert!(folios.iter().all(|&(i, o)| i % (1 << o) == 0), "folios are naturally aligned");
    }

    #[test]
    fn the_mapping_cap_bounds_the_order() {
        let (folios, _) = sequential_readahead(4096, 8, 512, 4);
        assert_eq!(folios.iter().map(|f| f.1).max(), Some(4));
    }
}
