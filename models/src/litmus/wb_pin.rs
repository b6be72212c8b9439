//! wb-pin: the wb's lifetime against a DONTCACHE kick's wakeup (the core: RCU read section,
//! `wb_get`, the switch's grace period and release), the `I_WB_SWITCH` handshake that
//! `unlocked_inode_to_wb_begin` relies on, and the v7 finding: the kick lost across a switch.

use super::{
    loom_reports, switch_begin, switch_end, wb_section_begin, wb_section_end, Basis, Litmus, Prediction, Proc,
    I_STATE_NOTE,
};
use crate::wb_pin::NAME;
use wb_core::property::{EXPEDITION, USE_AFTER_FREE};
use wb_core::revision::{KickPin, PinRevision, SwitchKick};

pub fn exports() -> Vec<Litmus> {
    let mut all: Vec<Litmus> = PinRevision::ALL.into_iter().map(lifetime).collect();
    all.push(i_wb_switch());
    all.extend([PinRevision::V7, PinRevision::V7FixSwitchKick].into_iter().map(switch_kick));
    all
}

fn lifetime(rev: PinRevision) -> Litmus {
    let uaf = loom_reports(rev, USE_AFTER_FREE);
    let deref = ("r0 = rcu_dereference(*i_wb);".to_string(), "unlocked_inode_to_wb_begin".to_string());
    let lock = ("rcu_read_lock();".to_string(), String::new());
    let unlock = ("rcu_read_unlock();".to_string(), "unlocked_inode_to_wb_end".to_string());
    let get = ("atomic_inc(r0);".to_string(), "wb_get".to_string());
    let wake = ("r1 = READ_ONCE(*r0);".to_string(), "wb_wakeup: touches the wb".to_string());
    let put = || {
        vec![
            ("r3 = atomic_dec_return(r0);".to_string(), "wb_put".to_string()),
            ("if (r3 == 0) {".to_string(), "the last reference: the release".to_string()),
            ("\tsynchronize_rcu();".to_string(), "call_rcu(&wb->rcu, cgwb_free_rcu)".to_string()),
            ("\tWRITE_ONCE(*r0, 99);".to_string(), "kfree(wb)".to_string()),
            ("}".to_string(), String::new()),
        ]
    };
    let (regs, body): (&[&str], Vec<(String, String)>) = match rev.knobs().pin {
        KickPin::Unpinned => (&["int *r0", "int r1"], vec![lock, deref, unlock, wake]),
        KickPin::WakeInSection => (&["int *r0", "int r1"], vec![lock, deref, wake, unlock]),
        KickPin::GetWakePut => {
            let mut b = vec![lock, deref, get, unlock, wake];
            b.extend(put());
            (&["int *r0", "int r1", "int r3"], b)
        }
        KickPin::PutBeforeWakeup => {
            let mut b = vec![lock, deref, get, unlock];
            b.extend(put());
            b.push(wake);
            (&["int *r0", "int r1", "int r3"], b)
        }
    };
    let p0 = Proc::new("int **i_wb", regs).lines(body);
    let p1 = Proc::new("int **i_wb, int *wb1, int *wb2", &["int r2"])
        .line("rcu_assign_pointer(*i_wb, wb2);", "inode_do_switch_wbs: i_wb = new_wb")
        .line("synchronize_rcu();", "see the reduction note")
        .line("r2 = atomic_dec_return(wb1);", "wb_put(old_wb): the inode's reference")
        .line("if (r2 == 0) {", "the last reference: the release")
        .line("\tsynchronize_rcu();", "call_rcu(&wb->rcu, cgwb_free_rcu)")
        .line("\tWRITE_ONCE(*wb1, 99);", "kfree(wb)")
        .line("}", "");
    let mut notes = vec![
        "P0 is a DONTCACHE writer's filemap_dontcache_kick_writeback that found dirty I/O and set the bit, so \
         it wakes the wb; P1 is a cgroup wb switch of its inode (foreign-owner detection or memcg offlining) \
         followed by the old wb's release. Each wb is one int: its reference count while it lives, 99 once \
         freed (P1's WRITE_ONCE stands for kfree, the poison a use would read). The exists clause is the use \
         after the free: P0 found the old wb and its wakeup read freed memory."
            .into(),
        "Reduced: the I_WB_SWITCH handshake is replaced by its net effect, a grace period between the \
         switch's publication and its put. The handshake makes a reader's section end before the switch \
         starts (the reader saw the flag clear, and the switch runs after queue_rcu_work's grace period), or \
         hold the i_pages lock across the switch's publication (the reader saw the flag set), or see the new \
         wb (the flag cleared with release): in each case everything the section did precedes the put, which \
         is what the grace period here gives. The +i-wb-switch export checks the handshake itself. Also left \
         out: the percpu_ref's per-CPU mode (cgwb_kill switched it to atomic mode before the switch), \
         cgwb_release_workfn's wb_shutdown and wb_exit (they precede the free), the kick's bit and counter."
            .into(),
    ];
    if rev.knobs().pin == KickPin::WakeInSection {
        notes.push(
            "Not expressible: this revision's finding is IRQ state, not ordering. When the section took the \
             locked path (xa_lock_irqsave on the i_pages lock), wb_wakeup's spin_unlock_irq re-enables \
             interrupts while that lock is held. LKMM has no per-task IRQ state, so this test shows only that \
             the lifetime is safe (Never); loom's irq-enabled-under-lock verdict has no litmus form."
                .into(),
        );
    }
    Litmus {
        scenario: NAME,
        revision: rev.name(),
        shape: None,
        title: "the kick's wakeup against the switch and the old wb's release".into(),
        summary: rev.summary(),
        prediction: Prediction::sometimes_if(uaf),
        basis: Basis {
            short: format!("loom: {}; RCU model", if uaf { "fail (use-after-free)" } else { "no use-after-free" }),
            long: format!(
                "loom's verdict on use-after-free, {}, which rests on wbcheck's grace-period model (a grace \
                 period ends only after every read section that began before it; models/tests/rcu_control.rs \
                 checks it in both directions). Here LKMM's own RCU axioms decide.",
                if uaf { "fail" } else { "pass" }
            ),
        },
        notes,
        init: vec!["i_wb=wb1", "wb1=1", "wb2=1"],
        procs: vec![p0, p1],
        exists: "0:r0=wb1 /\\ 0:r1=99".into(),
    }
}

/// The handshake of `unlocked_inode_to_wb_begin`: a reader that decrements a stat on the wb it
/// found (`folio_clear_dirty_for_io`) against the switch that moves the folio's stat.
fn i_wb_switch() -> Litmus {
    let p0 = Proc::new("int **i_wb, int *i_state, int *dirty, spinlock_t *i_pages", &["int r0", "int *r1", "int r2"])
        .lines(wb_section_begin("r0", "r1"))
        .line("r2 = xchg(dirty, 0);", "folio_test_clear_dirty")
        .line("if (r2 == 1)", "")
        .line("\tatomic_dec(r1);", "wb_stat_mod(wb, WB_RECLAIMABLE, -nr)")
        .lines(wb_section_end("r0"));
    let p1 = Proc::new("int **i_wb, int *i_state, int *dirty, int *wb1, int *wb2, spinlock_t *i_pages", &["int r3"])
        .lines(switch_begin())
        .line("r3 = READ_ONCE(*dirty);", "tagged dirty and folio_test_dirty")
        .line("if (r3 == 1) {", "")
        .line("\tatomic_dec(wb1);", "wb_stat_mod(old_wb, WB_RECLAIMABLE, -nr)")
        .line("\tatomic_inc(wb2);", "wb_stat_mod(new_wb, WB_RECLAIMABLE, nr)")
        .line("}", "")
        .lines(switch_end());
    Litmus {
        scenario: NAME,
        revision: PinRevision::V7.name(),
        shape: Some("i-wb-switch"),
        title: "the I_WB_SWITCH handshake of unlocked_inode_to_wb_begin against inode_do_switch_wbs".into(),
        summary: PinRevision::V7.summary(),
        prediction: Prediction::NEVER,
        basis: Basis {
            short: "the kernel's handshake: grace period, i_pages lock, release/acquire".into(),
            long: "the handshake as wbcheck models it (unlocked_inode_to_wb_begin's Acquire load, the switch's \
                   Release store, its grace period before the switch and the i_pages lock); every wb-pin verdict \
                   rests on it, and no revision changes it. A reader that saw the flag clear (r0=0) finished its \
                   section before the grace period ended; one that saw it set holds the lock; one that saw it \
                   cleared (r0=2) acquires the new i_wb. No data race: each plain access to i_wb is ordered by \
                   one of the three."
                .into(),
        },
        notes: vec![
            "P0 is folio_clear_dirty_for_io (the same section guards __folio_end_writeback, \
             folio_account_cleaned and the DONTCACHE kick): it clears the folio's dirty flag and decrements \
             WB_RECLAIMABLE on the wb it found. P1 sets I_WB_SWITCH, waits for a grace period, and under the \
             i_pages lock moves the stat of each folio still dirty, publishes the new wb and clears the flag \
             with a release. Each wb is one int, its WB_RECLAIMABLE count (the folio's page is counted on wb1). \
             The exists clause is the drift the handshake prevents: the reader decremented the old wb after the \
             switch moved the page (wb1=-1, wb2=1), or the new wb for a page the switch did not move (wb1=1, \
             wb2=-1)."
                .into(),
            format!(
                "{I_STATE_NOTE} Reduced: the other i_state bits, i_lock (taken by the switch around the same span; the reader never takes \
             it), the xarray's dirty tag (set throughout), the per-CPU counters (one relaxed atomic each)."
            ),
        ],
        init: vec!["i_wb=wb1", "i_state=0", "dirty=1", "wb1=1", "wb2=0"],
        procs: vec![p0, p1],
        exists: "wb1=1 \\/ wb2=1".into(),
    }
}

/// The v7 finding: the switch moves a kicked page's count to the new wb without its kick.
fn switch_kick(rev: PinRevision) -> Litmus {
    let lost = loom_reports(rev, EXPEDITION);
    let mut p0 = Proc::new("int *slot1, int *slot2, int *start2, int *pend2", &["int r0", "int r2"])
        .line("atomic_sub(1, slot1);", "inode_do_switch_wbs: wb_stat_mod(old_wb, DONTCACHE, -nr)")
        .line("atomic_add(1, slot2);", "wb_stat_mod(new_wb, WB_DONTCACHE_DIRTY, nr)");
    p0 = match rev.knobs().accounting.switch_kick {
        SwitchKick::None => p0,
        SwitchKick::SetStartDontcache => p0.line("r0 = xchg(start2, 1);", "(fix) test_and_set_bit(WB_start_dontcache)"),
    };
    p0 = p0.line("r2 = xchg(pend2, 1);", "wb_wakeup(new_wb): queue its work (PENDING)");
    let p1 = Proc::new("int *slot1, int *start1, int *pend1", &["int r3", "int r4", "int r5"])
        .line("r3 = xchg(pend1, 0);", "wb1's queued run starts: clear PENDING")
        .line("r4 = xchg(start1, 0);", "wb_check_start_dontcache: test_and_clear_bit")
        .line("r5 = READ_ONCE(*slot1);", "wb_stat_sum(wb, WB_DONTCACHE_DIRTY)");
    let p2 = Proc::new("int *slot2, int *start2, int *pend2", &["int r6", "int r7", "int r8"])
        .line("r6 = xchg(pend2, 0);", "wb2's run (the switch's wakeup) starts")
        .line("r7 = xchg(start2, 0);", "wb_check_start_dontcache: test_and_clear_bit")
        .line("if (r7 == 1)", "")
        .line("\tr8 = READ_ONCE(*slot2);", "wb_stat_sum(wb, WB_DONTCACHE_DIRTY)");
    Litmus {
        scenario: NAME,
        revision: rev.name(),
        shape: Some("switch-kick"),
        title: "a kicked DONTCACHE page moved by a cgroup wb switch".into(),
        summary: rev.summary(),
        prediction: Prediction::sometimes_if(lost),
        basis: Basis {
            short: format!("loom: {}", if lost { "fail (expedition)" } else { "pass" }),
            long: format!(
                "loom's verdict on expedition, {}. {}",
                if lost { "fail" } else { "pass" },
                if lost {
                    "The outcome needs no reordering (kick, switch, then the two runs, in that order)."
                } else {
                    "The fix's bit is set by a fully ordered xchg after the move and before the wakeup's \
                     PENDING; the run that reads that PENDING then reads the bit and the moved count."
                }
            ),
        },
        notes: vec![
            "A writer dirtied a DONTCACHE page charged to wb1 and kicked wb1 (slot1=1, start1=1, pend1=1: the \
             run P1 is, queued). P0 is inode_do_switch_wbs moving the inode to wb2: it moves the page's \
             WB_DONTCACHE_DIRTY and wakes wb2 (P2's run). The exists clause: wb1's run found the kick but a \
             count of 0 (the page moved), and wb2's run, queued by the switch, found no kick: neither writes \
             the page back as DONTCACHE; it waits for kupdate, 30 s after the switch re-dated the inode."
                .into(),
            "Reduced: each wb's WB_DONTCACHE_DIRTY is one int (the per-CPU slots of one CPU; the sum's \
             fbc->lock orders nothing against the switch's relaxed adds), the switch's i_lock, i_pages lock \
             and I_WB_SWITCH (the writer is done; no reader is concurrent), the writeback the runs do. The \
             slot reads are READ_ONCE where the kernel's sum is plain (see the dontcache-kick exports)."
                .into(),
        ],
        init: vec!["slot1=1", "start1=1", "pend1=1"],
        procs: vec![p0, p1, p2],
        exists: "1:r3=1 /\\ 1:r4=1 /\\ 1:r5=0 /\\ 2:r6=1 /\\ 2:r8=0".into(),
    }
}
