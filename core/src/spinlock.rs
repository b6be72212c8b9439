//! Kernel spinlocks over the platform mutex, with the IRQ effects of their lock variants on the
//! calling task: the one place a lock and a task's IRQ state meet.

use crate::ctx::Ctx;
use crate::sync::{Lock, Platform};

/// A kernel spinlock (`spinlock_t`, `raw_spinlock_t`, the xa_lock) over [`Platform::Mutex`], with
/// the IRQ-state effects of its lock variants on the calling task ([`Ctx`]).
pub struct SpinLock<P: Platform, T: Send + 'static> {
    inner: P::Mutex<T>,
}

/// How a held [`SpinLock`] was taken, which decides what unlocking does to IRQs.
enum IrqMode<'a, P: Platform> {
    /// `spin_lock`: nothing.
    Plain,
    /// `spin_lock_irq`: `spin_unlock_irq` enables interrupts unconditionally.
    Irq(&'a Ctx<P>, &'static str),
    /// `spin_lock_irqsave`: `spin_unlock_irqrestore` restores the saved state.
    IrqSave(&'a Ctx<P>, &'static str, bool),
}

/// Held [`SpinLock`]; unlocks on drop, then applies the IRQ effect of the unlock variant.
pub struct SpinGuard<'a, P: Platform, T: Send + 'static> {
    guard: Option<<P::Mutex<T> as Lock<T>>::Guard<'a>>,
    mode: IrqMode<'a, P>,
}

impl<P: Platform, T: Send + 'static> SpinLock<P, T> {
    pub fn new(v: T) -> Self {
        SpinLock { inner: P::Mutex::new(v) }
    }

    /// `spin_lock()`.
    pub fn lock(&self) -> SpinGuard<'_, P, T> {
        SpinGuard { guard: Some(self.inner.lock()), mode: IrqMode::Plain }
    }

    /// `spin_trylock()`.
    pub fn try_lock(&self) -> Option<SpinGuard<'_, P, T>> {
        Some(SpinGuard { guard: Some(self.inner.try_lock()?), mode: IrqMode::Plain })
    }

    /// `spin_lock_irq()`: disable interrupts, then lock; the unlock enables them unconditionally
    /// (a violation if an irqsave lock is held then). `function` names the caller in the trace.
    pub fn lock_irq<'a>(&'a self, ctx: &'a Ctx<P>, function: &'static str) -> SpinGuard<'a, P, T> {
        ctx.local_irq_save();
        SpinGuard { guard: Some(self.inner.lock()), mode: IrqMode::Irq(ctx, function) }
    }

    /// `spin_lock_irqsave()` / `xa_lock_irqsave()`: save and disable interrupts, then lock; the
    /// lock counts as held-irqsave until unlocked.
    pub fn lock_irqsave<'a>(&'a self, ctx: &'a Ctx<P>, function: &'static str) -> SpinGuard<'a, P, T> {
        let was = ctx.local_irq_save();
        let guard = self.inner.lock();
        ctx.irqsave_acquired();
        SpinGuard { guard: Some(guard), mode: IrqMode::IrqSave(ctx, function, was) }
    }
}

impl<P: Platform, T: Send + 'static> std::ops::Deref for SpinGuard<'_, P, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.guard.as_ref().expect("held until drop")
    }
}

impl<P: Platform, T: Send + 'static> std::ops::DerefMut for SpinGuard<'_, P, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.guard.as_mut().expect("held until drop")
    }
}

impl<P: Platform, T: Send + 'static> Drop for SpinGuard<'_, P, T> {
    fn drop(&mut self) {
        drop(self.guard.take());
        match self.mode {
            IrqMode::Plain => {}
            IrqMode::Irq(ctx, function) => ctx.local_irq_enable(function),
            IrqMode::IrqSave(ctx, function, was) => {
                ctx.irqsave_released();
                ctx.local_irq_restore(function, was);
            }
        }
    }
}
