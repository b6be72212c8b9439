//! `wbcheck simulate foreign-flush`: a sequential, deterministic writeback simulation of the
//! seeds' headline effect: owner-wide foreign flushes write an overwritten hot file before its
//! overwrites coalesce, and the extra device writes take bandwidth from a direct-I/O foreground.
//!
//! The workload parameters were fixed from seed 000's fio commands and the kernel's defaults
//! before the first run, and are not tuned towards the seeds' figures. The seeds do not say how
//! often the four memcgs' throttling issued foreign flushes: the default interval (2 s) was chosen
//! before the first run too, and the curve shows the whole range.

use std::fmt::Write as _;

/// The workload and the device, all fixed (see the module docs).
#[derive(Debug, Clone, Copy)]
pub struct Workload {
    /// fio hotspot: `--size=256M` overwritten sequentially, `--rate=64M`, `--io_size=9216M`.
    pub hot_file_mib: f64,
    pub hot_rate_mib_s: f64,
    pub hot_total_mib: f64,
    /// fio foreground: `--io_size=16384M` direct writes, started after `sleep 8`.
    pub foreground_mib: f64,
    pub foreground_start_s: f64,
    /// Device write bandwidth cap (both seeds: 200 MiB/s).
    pub device_mib_s: f64,
    /// `dirty_writeback_centisecs` and `dirty_expire_centisecs` defaults: 5 s and 30 s.
    pub writeback_interval_s: f64,
    pub expire_s: f64,
    pub tick_s: f64,
}

pub const SEED_000: Workload = Workload {
    hot_file_mib: 256.0,
    hot_rate_mib_s: 64.0,
    hot_total_mib: 9216.0,
    foreground_mib: 16384.0,
    foreground_start_s: 8.0,
    device_mib_s: 200.0,
    writeback_interval_s: 5.0,
    expire_s: 30.0,
    tick_s: 0.01,
};

/// The default foreign-flush interval under the baseline (fixed before the first run).
pub const DEFAULT_FOREIGN_INTERVAL_S: f64 = 2.0;

/// What one run measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimResult {
    /// Device writes of the hot file, including the final sync.
    pub hot_gib: f64,
    /// Foreground completion time from its start, and its mean bandwidth.
    pub foreground_s: f64,
    pub foreground_mib_s: f64,
}

/// Run the workload. `foreign_interval_s`: owner-wide foreign flushes of the root wb every so many
/// seconds (the baseline), or `None` (skip-bdev and separate-bdev: foreign flushes never write the
/// root wb's ordinary inodes; separate-bdev's bdev-mapping flushes are small metadata writes,
/// not counted here for any policy).
pub fn run(w: &Workload, foreign_interval_s: Option<f64>) -> SimResult {
    // The hot file in 64 KiB chunks (fio's block size): dirty flags and the inode's dirtied_when.
    let chunk_mib = 1.0 / 16.0;
    let chunks = (w.hot_file_mib / chunk_mib) as usize;
    let mut dirty = vec![false; chunks];
    let mut dirty_count = 0usize;
    let mut inode_dirtied_at: Option<f64> = None;
    let (mut written_hot_mib, mut hot_done_mib, mut next_chunk) = (0.0f64, 0.0f64, 0usize);
    let (mut queue_mib, mut fg_done_mib, mut fg_end) = (0.0f64, 0.0f64, None);
    let (mut next_periodic, mut next_foreign) = (w.writeback_interval_s, foreign_interval_s.unwrap_or(f64::INFINITY));
    let mut pending_mib = 0.0f64;
    let write_back = |dirty: &mut Vec<bool>, dirty_count: &mut usize, queue: &mut f64, written: &mut f64| {
        let mib = *dirty_count as f64 * chunk_mib;
        dirty.iter_mut().for_each(|d| *d = false);
        *dirty_count = 0;
        *queue += mib;
        *written += mib;
    };
    let mut t = 0.0f64;
    while hot_done_mib < w.hot_total_mib || fg_done_mib < w.foreground_mib || queue_mib > 0.0 {
        // The hot writer overwrites sequentially at its rate.
        if hot_done_mib < w.hot_total_mib {
            pending_mib += w.hot_rate_mib_s * w.tick_s;
            while pending_mib >= chunk_mib && hot_done_mib < w.hot_total_mib {
                pending_mib -= chunk_mib;
                hot_done_mib += chunk_mib;
                if !dirty[next_chunk] {
                    dirty[next_chunk] = true;
                    dirty_count += 1;
                }
                inode_dirtied_at.get_or_insert(t);
                next_chunk = (next_chunk + 1) % chunks;
            }
            if hot_done_mib >= w.hot_total_mib {
                // fio ends; the final sync writes what is left.
                write_back(&mut dirty, &mut dirty_count, &mut queue_mib, &mut written_hot_mib);
                inode_dirtied_at = None;
            }
        }
        // Periodic (kupdate) writeback: an inode dirty for longer than the expiry is written.
        if t >= next_periodic {
            next_periodic += w.writeback_interval_s;
            if inode_dirtied_at.is_some_and(|d| t - d >= w.expire_s) {
                write_back(&mut dirty, &mut dirty_count, &mut queue_mib, &mut written_hot_mib);
                inode_dirtied_at = None;
            }
        }
        // Owner-wide foreign flush (baseline): every dirty inode of the root wb.
        if t >= next_foreign {
            next_foreign += foreign_interval_s.unwrap_or(f64::INFINITY);
            write_back(&mut dirty, &mut dirty_count, &mut queue_mib, &mut written_hot_mib);
            inode_dirtied_at = None;
        }
        // The device: queued writeback first, the foreground gets what is left.
        let mut budget = w.device_mib_s * w.tick_s;
        let wb = queue_mib.min(budget);
        queue_mib -= wb;
        budget -= wb;
        if t >= w.foreground_start_s && fg_done_mib < w.foreground_mib {
            fg_done_mib = (fg_done_mib + budget).min(w.foreground_mib);
            if fg_done_mib >= w.foreground_mib {
                fg_end = Some(t + w.tick_s);
            }
        }
        t += w.tick_s;
    }
    let foreground_s = fg_end.unwrap_or(t) - w.foreground_start_s;
    SimResult { hot_gib: written_hot_mib / 1024.0, foreground_s, foreground_mib_s: w.foreground_mib / foreground_s }
}

/// The report: seed 000's table shape for each policy, then the curve of hot-file device writes
/// against the foreign-flush interval.
pub fn report(w: &Workload) -> String {
    let base = run(w, Some(DEFAULT_FOREIGN_INTERVAL_S));
    let other = run(w, None);
    let mut out = String::new();
    let _ = writeln!(out, "foreign-flush simulation (seed 000's workload; baseline foreign flushes every {DEFAULT_FOREIGN_INTERVAL_S} s)\n");
    let _ = writeln!(out, "| metric | baseline | skip-bdev | separate-bdev |");
    let _ = writeln!(out, "|---|---:|---:|---:|");
    let _ = writeln!(
        out,
        "| overwritten-file device writes (GiB) | {:.2} | {:.2} | {:.2} |",
        base.hot_gib, other.hot_gib, other.hot_gib
    );
    let _ = writeln!(
        out,
        "| foreground completion time (s) | {:.1} | {:.1} | {:.1} |",
        base.foreground_s, other.foreground_s, other.foreground_s
    );
    let _ = writeln!(
        out,
        "| foreground bandwidth (MiB/s) | {:.1} | {:.1} | {:.1} |",
        base.foreground_mib_s, other.foreground_mib_s, other.foreground_mib_s
    );
    let _ = writeln!(out, "\nbaseline: overwritten-file device writes against the foreign-flush interval\n");
    let _ = writeln!(out, "| interval (s) | hot-file writes (GiB) | foreground (s) |");
    let _ = writeln!(out, "|---:|---:|---:|");
    for interval in [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0] {
        let r = run(w, Some(interval));
        let _ = writeln!(out, "| {interval} | {:.2} | {:.1} |", r.hot_gib, r.foreground_s);
    }
    let _ = writeln!(out, "| never (skip-bdev, separate-bdev) | {:.2} | {:.1} |", other.hot_gib, other.foreground_s);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owner_wide_flushes_write_more_and_slow_the_foreground() {
        let base = run(&SEED_000, Some(DEFAULT_FOREIGN_INTERVAL_S));
        let skip = run(&SEED_000, None);
        assert!(base.hot_gib > 2.0 * skip.hot_gib, "{base:?} vs {skip:?}");
        assert!(base.foreground_s > skip.foreground_s);
        // Nothing is written twice without being overwritten: at most the bytes written by fio.
        assert!(base.hot_gib <= SEED_000.hot_total_mib / 1024.0 + 0.01);
        assert!(skip.hot_gib >= SEED_000.hot_file_mib / 1024.0);
    }

    #[test]
    fn longer_intervals_coalesce_more() {
        let writes: Vec<f64> = [0.5, 2.0, 8.0, 32.0].iter().map(|&i| run(&SEED_000, Some(i)).hot_gib).collect();
        assert!(writes.windows(2).all(|w| w[0] >= w[1]), "{writes:?}");
    }
}
