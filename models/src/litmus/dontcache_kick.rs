//! dontcache-kick: the kick's bit against the flusher's consume and the counter's slot (the
//! core, every writer-side shape); the `wb_has_dirty_io` guard against another task inside
//! `__mark_inode_dirty` (the v7 finding); v5's `wb_stat()` read when the writer's add folds; a
//! rescuer run against a later kick; and the fix's first dirty inode against the consume's
//! re-set, two RMWs of one word.

use super::{lines, loom_reports, Basis, Lines, Litmus, Outcome, Prediction, Proc};
use crate::dontcache_kick::NAME;
use wb_core::property::EXPEDITION;
use wb_core::revision::{Consume, Kick, KickGuard, KickRevision, Requeue};

pub fn exports() -> Vec<Litmus> {
    let shapes = KickRevision::ALL.into_iter().filter(|r| first_of_its_writer_shape(*r));
    let mut all: Vec<Litmus> = shapes.clone().map(core).collect();
    all.extend(shapes.clone().filter_map(guard));
    all.extend(shapes.filter_map(fold));
    all.extend([KickRevision::V7, KickRevision::V7FixKickRequeue].map(rescuer));
    all.push(first_dirty(KickRevision::V7FixKickHold));
    all
}

/// What the writer-side shapes (core, guard, fold) depend on: the kick, its guard, the consume,
/// and `__mark_inode_dirty`'s barrier. The flusher's other knobs (the requeue, the re-set on a
/// short writeback, the first dirty inode's wakeup) are no part of them.
fn writer_shape(rev: KickRevision) -> (Kick, KickGuard, Consume, bool) {
    let k = rev.knobs();
    (k.kick, k.guard, k.consume, k.writer_smp_mb)
}

/// Whether `rev` is the first revision of the catalogue with its writer-side shape: the shapes
/// are exported once, under that revision's name.
fn first_of_its_writer_shape(rev: KickRevision) -> bool {
    KickRevision::ALL.into_iter().find(|r| writer_shape(*r) == writer_shape(rev)) == Some(rev)
}

/// The core shape's outcome, from its primitives: store buffering between the writer's add and
/// bit test and the consume's bit clear and sum, with a full barrier on both sides unless the
/// writer lost `__mark_inode_dirty`'s `smp_mb()` on the posted kick (whose first test is a plain
/// read; the fold's `test_and_set_bit` is fully ordered itself); the late clear and the global-count
/// read miss the page with no reordering at all.
fn core_prediction(rev: KickRevision) -> (Prediction, &'static str) {
    let k = rev.knobs();
    match k.consume {
        Consume::ClearThenApproxRead => (Prediction::SOMETIMES, "sequential: wb_stat() misses the slot"),
        Consume::LateClear => (Prediction::SOMETIMES, "sequential: the clear after the sum"),
        Consume::ClearThenSum if k.kick == Kick::Posted && !k.writer_smp_mb => {
            (Prediction::SOMETIMES, "store buffering: no barrier before the posted test_bit")
        }
        Consume::ClearThenSum => (Prediction::NEVER, "store buffering with full barriers on both sides"),
    }
}

const SHAPE_NOTE: &str = "start is WB_start_dontcache, set by an earlier writer's kick that queued the flusher \
    run P1 is. P0 is a second writer: __folio_mark_dirty adds its page to its CPU's WB_DONTCACHE_DIRTY slot, \
    __mark_inode_dirty follows, then filemap_dontcache_kick_writeback tests the bit; r1=1: P0 did not wake the \
    flusher. The exists clause is the lost wakeup: P0 skipped its wakeup, P1 consumed the kick and its count \
    missed P0's page, which then waits for periodic writeback.";

const REDUCTION_NOTE: &str = "Reduced: the kick's wb_has_dirty_io test (P0's own dirtying set it; its own race is \
    the +guard export), the writer's own WB_has_dirty_io read, wb_wakeup and the work item's PENDING \
    handshake, percpu_counter_sum's fbc->lock (the writer's fast path does not take it), the other CPUs' \
    slots (zero throughout) and count (no fold: the add is below the batch). None of them orders P0's \
    accesses against P1's.";

const PLAIN_SLOT_NOTE: &str = "Plain accesses: __percpu_counter_sum reads the slots with plain loads, racing with \
    the adder's this_cpu_try_cmpxchg on another CPU. Written plainly, LKMM flags that data race and gives the \
    test no defined outcome, so the ordering question goes unanswered. The slot read here is READ_ONCE: the \
    assumption the kernel makes (an aligned s32 load happens once and whole) and wbcheck's loom model makes (a \
    Relaxed load). The percpu-counter +sum export shows the race as written.";

/// `filemap_dontcache_kick_writeback`'s bit test (the guard left out): r1=1 when it does not wake.
fn kick(kick: Kick) -> Lines {
    match kick {
        Kick::Fold => lines(&[("r1 = xchg(start, 1);", "!test_and_set_bit(WB_start_dontcache)")]),
        Kick::Posted => lines(&[
            ("r0 = READ_ONCE(*start);", "!test_bit(WB_start_dontcache)"),
            ("if (r0 == 0)", ""),
            ("\tr1 = xchg(start, 1);", "&& !test_and_set_bit(WB_start_dontcache)"),
            ("else", ""),
            ("\tr1 = 1;", "skipped on the test_bit"),
        ]),
    }
}

fn core(rev: KickRevision) -> Litmus {
    let k = rev.knobs();
    let mut p0 =
        Proc::new("int *slot, int *start", if k.kick == Kick::Posted { &["int r0", "int r1"] } else { &["int r1"] })
            .line("WRITE_ONCE(*slot, 1);", "percpu_counter_add_batch: this CPU's slot");
    p0 = if k.writer_smp_mb {
        p0.line("smp_mb();", "__mark_inode_dirty")
    } else {
        p0.line("", "(mutant) __mark_inode_dirty without smp_mb()")
    };
    p0 = p0.lines(kick(k.kick));
    let p1 = match k.consume {
        Consume::ClearThenSum => Proc::new("int *slot, int *start", &["int r2", "int r3"])
            .line("r2 = xchg(start, 0);", "test_and_clear_bit(WB_start_dontcache)")
            .line("r3 = READ_ONCE(*slot);", "wb_stat_sum: percpu_counter_sum reads the slot"),
        Consume::ClearThenApproxRead => Proc::new("int *count, int *start", &["int r2", "int r3"])
            .line("r2 = xchg(start, 0);", "test_and_clear_bit(WB_start_dontcache)")
            .line("r3 = *count;", "wb_stat: percpu_counter_read, the global count only"),
        Consume::LateClear => Proc::new("int *slot, int *start", &["int r2", "int r3"])
            .line("r2 = READ_ONCE(*start);", "test_bit(WB_start_dontcache)")
            .line("r3 = READ_ONCE(*slot);", "wb_stat_sum: percpu_counter_sum reads the slot")
            .line("WRITE_ONCE(*start, 0);", "clear_bit(WB_start_dontcache) after wb_writeback"),
    };
    let mut notes = vec![SHAPE_NOTE.to_string(), REDUCTION_NOTE.to_string()];
    if k.consume == Consume::ClearThenApproxRead {
        notes.push(
            "wb_stat() reads fbc->count, a plain load that nothing here writes: P0's add is below the batch and \
             stays in its slot, so the count misses it even in a sequential run. When the add folds, the count \
             has it: that case is the +fold export."
                .into(),
        );
    } else {
        notes.push(PLAIN_SLOT_NOTE.into());
    }
    let (prediction, why) = core_prediction(rev);
    Litmus {
        scenario: NAME,
        revision: rev.name(),
        shape: None,
        title: "the kick's bit against the consume and the counter's slot".into(),
        summary: rev.summary(),
        prediction,
        basis: Basis {
            short: why.into(),
            long: format!(
                "{why}. The shape leaves out the guard and the flusher's requeue, which decide other ways to miss                  an expedition ({}'s loom verdict over the whole scope: {}).",
                rev.name(),
                if loom_reports(rev, EXPEDITION) { "expedition fails" } else { "expedition holds" }
            ),
        },
        notes,
        init: vec!["start=1"],
        procs: vec![p0, p1],
        exists: "0:r1=1 /\\ 1:r2=1 /\\ 1:r3=0".into(),
    }
}

/// The v7 finding: the guard read while another task is between setting the inode's dirty
/// bits and putting it on `b_dirty`. Exported for the revisions with the guard whose core shape
/// is Never, so that a lost kick is this window's.
fn guard(rev: KickRevision) -> Option<Litmus> {
    if rev.knobs().guard != KickGuard::HasDirtyIo || core_prediction(rev).0 != Prediction::NEVER {
        return None;
    }
    let twin = KickRevision::ALL
        .into_iter()
        .find(|r| {
            writer_shape(*r) == (rev.knobs().kick, KickGuard::None, rev.knobs().consume, rev.knobs().writer_smp_mb)
        })
        .expect("a guard-free twin in the catalogue");
    let p0 = Proc::new("int *i_state, int *has_dirty_io, spinlock_t *i_lock, spinlock_t *list_lock", &[])
        .line("spin_lock(i_lock);", "__mark_inode_dirty of a clean inode")
        .line("WRITE_ONCE(*i_state, 1);", "inode->i_state |= I_DIRTY_PAGES")
        .line("spin_unlock(i_lock);", "locked_inode_to_wb_and_lock_list drops it")
        .line("spin_lock(list_lock);", "and takes wb->list_lock")
        .line("WRITE_ONCE(*has_dirty_io, 1);", "inode_io_list_move_locked: set_bit(WB_has_dirty_io)")
        .line("spin_unlock(list_lock);", "");
    let p1 = Proc::new("int *slot, int *i_state, int *has_dirty_io", &["int r0", "int r1"])
        .line("WRITE_ONCE(*slot, 1);", "__folio_mark_dirty: WB_DONTCACHE_DIRTY");
    let p1 = if rev.knobs().writer_smp_mb {
        p1.line("smp_mb();", "__mark_inode_dirty")
    } else {
        p1.line("", "(mutant) __mark_inode_dirty without smp_mb()")
    };
    let p1 = p1
        .line("r0 = READ_ONCE(*i_state);", "(i_state & flags) == flags: return")
        .line("r1 = READ_ONCE(*has_dirty_io);", "filemap_dontcache_kick_writeback: wb_has_dirty_io");
    Some(Litmus {
        scenario: NAME,
        revision: rev.name(),
        shape: Some("guard"),
        title: "the kick's wb_has_dirty_io test inside another task's __mark_inode_dirty".into(),
        summary: rev.summary(),
        prediction: Prediction::SOMETIMES,
        basis: Basis {
            short: "sequential: P0 stops between its two critical sections".into(),
            long: format!(
                "The outcome needs no reordering: it is allowed under sequential consistency (P0 stops between its \
                 two critical sections). {}'s twin without the wb_has_dirty_io test, {}, has this shape's kick \
                 always set the bit.",
                rev.name(),
                twin.name()
            ),
        },
        notes: vec![
            "P0 is a task that dirties the inode without kicking (a buffered write, a write fault, \
             file_update_time). Writeback had just depopulated the wb (has_dirty_io=0). P1 is a DONTCACHE \
             writer of the same inode: it counts its page, sees the inode already dirty and returns from \
             __mark_inode_dirty, then its kick reads wb_has_dirty_io. The exists clause: P1 skipped \
             __mark_inode_dirty and its kick found no dirty I/O, so nothing wakes the flusher for its page; P0's \
             wb_wakeup_delayed is a periodic run, which writes only inodes dirty for 30 s."
                .into(),
            "Reduced: WB_start_dontcache and the consume (the kick returns before the bit), the inode's \
             dirtied_when and the b_dirty list (has_dirty_io is the list's population), the folio's dirty \
             state. The fix v7-fix-kick drops the test; its kick is the core shape (+v7-fix-kick exports)."
                .into(),
        ],
        init: vec![],
        procs: vec![p0, p1],
        exists: "1:r0=1 /\\ 1:r1=0".into(),
    })
}

/// v5's approximate read when the writer's add reaches the batch and folds into `count`.
fn fold(rev: KickRevision) -> Option<Litmus> {
    let k = rev.knobs();
    if k.consume != Consume::ClearThenApproxRead {
        return None;
    }
    let mut p0 = Proc::new("int *count, int *start, spinlock_t *fbc_lock", &["int r0", "int r1", "int r4"])
        .line("spin_lock(fbc_lock);", "percpu_counter_add_batch: |slot + 1| >= batch")
        .line("r4 = *count;", "fbc->count += slot + amount")
        .line("*count = r4 + 1;", "")
        .line("spin_unlock(fbc_lock);", "");
    if k.writer_smp_mb {
        p0 = p0.line("smp_mb();", "__mark_inode_dirty");
    }
    p0 = p0.lines(kick(k.kick));
    let p1 = Proc::new("int *count, int *start", &["int r2", "int r3"])
        .line("r2 = xchg(start, 0);", "test_and_clear_bit(WB_start_dontcache)")
        .line("r3 = *count;", "wb_stat: percpu_counter_read, a plain load");
    Some(Litmus {
        scenario: NAME,
        revision: rev.name(),
        shape: Some("fold"),
        title: "v5's wb_stat() read when the writer's add folds into the count".into(),
        summary: rev.summary(),
        prediction: Prediction::NEVER.racy(),
        basis: Basis {
            short: "store buffering with full barriers; the plain read races".into(),
            long: "Never for the outcome, by the argument of the core shape: the fold's store to count precedes \
                   P0's smp_mb() and its fully ordered xchg, P1's read follows its fully ordered xchg, so if P1's \
                   xchg reads from P0's, P1 reads the count after the fold. DATARACE: percpu_counter_read() is a \
                   plain load outside fbc->lock and the fold's store is plain too; LKMM flags that, and with the \
                   race flagged the outcome is not defined (judgelitmus.sh forgives it). wbcheck's loom model \
                   reads count Relaxed, the single-load assumption the kernel makes."
                .into(),
        },
        notes: vec![
            "The same two threads as the core shape, but P0's page is the one that reaches the batch: \
             percpu_counter_add_batch folds the slot into fbc->count under fbc->lock. With the fold, wb_stat() \
             can see the page, and the exists clause needs reordering that the barriers forbid; below the \
             batch (the core export) nothing reaches the count and the wakeup is lost even sequentially. v6 \
             replaced wb_stat() with wb_stat_sum() for that second case."
                .into(),
            "Reduced: the slot (the fold subtracts what it added to count; zero before and after here), the \
             other CPUs' slots, the guard (as in the core shape)."
                .into(),
        ],
        init: vec!["start=1"],
        procs: vec![p0, p1],
        exists: "0:r1=1 /\\ 1:r2=1 /\\ 1:r3=0".into(),
    })
}

/// A rescuer run against a later kick; loom's verdict is its twin's without the guard (the
/// shape has no `wb_has_dirty_io` test): `v7` by `v7-fix-kick`.
fn rescuer(rev: KickRevision) -> Litmus {
    let twin = wb_core::revision::KickProtocol { guard: KickGuard::None, ..rev.knobs() };
    let by = KickRevision::ALL.into_iter().find(|r| r.knobs() == twin).unwrap_or(rev);
    let fails = loom_reports(by, EXPEDITION);
    let mut p0 = Proc::new("int *start, int *pending", &["int r0", "int r1", "int r2"])
        .line("r0 = xchg(pending, 0);", "the rescuer takes the work: clear PENDING, smp_mb()")
        .line("", "wb_workfn on the rescuer: writeback_inodes_wb(wb, 1024),")
        .line("", "which does not run wb_check_start_dontcache");
    p0 = match rev.knobs().requeue {
        Requeue::WorkList => p0.line("", "wb_workfn requeues only for queued work items"),
        Requeue::WorkListOrKick | Requeue::WorkListOrKickWithDirtyIo => p0
            .line("r1 = READ_ONCE(*start);", "(fix) test_bit(WB_start_dontcache)")
            .line("if (r1 == 1)", "")
            .line("\tr2 = xchg(pending, 1);", "wb_wakeup: queue the work again (PENDING)"),
    };
    let p1 = Proc::new("int *start", &["int r3"])
        .line("r3 = xchg(start, 1);", "a later writer: !test_and_set_bit(WB_start_dontcache)");
    Litmus {
        scenario: NAME,
        revision: rev.name(),
        shape: Some("rescuer"),
        title: "a rescuer run against a later kick".into(),
        summary: rev.summary(),
        prediction: Prediction { outcome: if fails { Outcome::Always } else { Outcome::Never }, data_race: false },
        basis: Basis {
            short: format!("loom: {} for {}; sequential", if fails { "fail (expedition)" } else { "pass" }, by.name()),
            long: format!(
                "loom's verdict for {}, {}. The outcome needs no reordering: in every execution the rescuer's run \
                 leaves the bit as it found it, so the prediction is {} rather than {}.",
                by.name(),
                if fails { "fail (expedition)" } else { "pass" },
                if fails { "Always" } else { "Never" },
                if fails { "Sometimes" } else { "Sometimes or Never" }
            ),
        },
        notes: vec![
            "An earlier writer's kick set WB_start_dontcache and queued the wb's work (start=1, pending=1). \
             Under memory pressure the workqueue's rescuer runs it, and 6.12's wb_workfn then calls \
             writeback_inodes_wb instead of wb_do_writeback. P1 is any later DONTCACHE writer: it finds the bit \
             set and does not wake. The exists clause: the bit stays set with no run queued, so every later \
             kick is absorbed until an unrelated run (the periodic timer, or the next first dirty inode)."
                .into(),
            "Reduced: the worker's loop and the rescuer's selection (LKMM has no workqueue; the rescuer's run \
             is the one P0 is), the pages and their writeback, the consume (never reached on this path)."
                .into(),
        ],
        init: vec!["start=1", "pending=1"],
        procs: vec![p0, p1],
        exists: "0:r0=1 /\\ 1:r3=1 /\\ start=1 /\\ pending=0".into(),
    }
}

/// The fix's first dirty inode against the consume's re-set (`v7-fix-kick-hold`): the flusher sets
/// WB_start_dontcache again after a short writeback and then tests WB_has_dirty_io for its
/// requeue; the first dirtier sets WB_has_dirty_io and then tests WB_start_dontcache for its
/// wakeup. Both bits live in `wb->state`, and both `set_bit`s are RMWs of it: coherence forbids
/// both tests missing the other's bit, with no barrier.
fn first_dirty(rev: KickRevision) -> Litmus {
    let p0 = Proc::new("atomic_t *state", &["int r0"])
        .line("atomic_add(1, state);", "wb_check_start_dontcache: set_bit(WB_start_dontcache) (bit 1)")
        .line("r0 = atomic_read(state);", "wb_workfn: test_bit(WB_start_dontcache) && wb_has_dirty_io (bit 2)");
    let p1 = Proc::new("atomic_t *state", &["int r1"])
        .line("atomic_add(2, state);", "wb_io_lists_populated: set_bit(WB_has_dirty_io) (bit 2)")
        .line("r1 = atomic_read(state);", "__mark_inode_dirty: test_bit(WB_start_dontcache) (bit 1)");
    Litmus {
        scenario: NAME,
        revision: rev.name(),
        shape: Some("first-dirty"),
        title: "the consume's re-set against the first dirty inode, one word".into(),
        summary: rev.summary(),
        prediction: Prediction::NEVER,
        basis: Basis {
            short: "coherence: two RMWs of one word".into(),
            long: "Never: P0's and P1's atomic_add are RMWs of one location, so one reads the other's store, and \
                   the later thread's atomic_read sees both bits (coherence; no barrier involved). With the bits in \
                   two words, set_bit is unordered and both reads may miss (store buffering): the fix would need \
                   smp_mb__after_atomic() on both sides."
                .into(),
        },
        notes: vec![
            "state is wb->state with WB_start_dontcache as 1 and WB_has_dirty_io as 2 (each set once here, so \
             atomic_add stands for set_bit: linux-kernel.def has no bitops). Before P0, the consume cleared \
             WB_start_dontcache, read a budget and its writeback wrote less (the inode of the kicked page was not \
             on the lists yet: its first dirtier was between i_lock and list_lock); P0 sets the bit again and \
             ends wb_workfn, requeuing only if WB_has_dirty_io is set. P1 is that first dirtier putting the \
             inode on b_dirty. The exists clause is the lost expedition: P0 saw no dirty I/O (no requeue) and \
             P1 saw no kick (wb_wakeup_delayed only)."
                .into(),
            "Reduced: the consume, the writeback and the lists (r0 = 1 is P0's requeue test failing, r1 = 2 \
             P1's wakeup test failing), list_lock (P0's writeback released it before the set_bit, which orders \
             nothing after it)."
                .into(),
        ],
        init: vec![],
        procs: vec![p0, p1],
        exists: "0:r0=1 /\\ 1:r1=2".into(),
    }
}
