//! Reference `percpu_counter`: `count` plus per-CPU slots, batch folding, every call atomic.

/// The sequential meaning of lib/percpu_counter.c with a given batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefPercpu {
    pub count: i64,
    pub slots: Vec<i64>,
    pub batch: i64,
}

impl RefPercpu {
    pub fn new(nr_cpus: usize, batch: i64) -> Self {
        RefPercpu { count: 0, slots: vec![0; nr_cpus], batch }
    }

    /// `percpu_counter_add_batch` on `cpu`: the slot keeps the sum while it stays strictly
    /// inside (-batch, batch); otherwise slot and amount move to `count` and the slot empties.
    pub fn add(&mut self, cpu: usize, amount: i64) {
        let next = self.slots[cpu] + amount;
        if next.abs() < self.batch {
            self.slots[cpu] = next;
        } else {
            self.count += next;
            self.slots[cpu] = 0;
        }
    }

    /// `percpu_counter_read`: the global part only.
    pub fn read(&self) -> i64 {
        self.count
    }

    pub fn read_positive(&self) -> i64 {
        self.count.max(0)
    }

    /// `percpu_counter_sum`: everything.
    pub fn sum(&self) -> i64 {
        self.count + self.slots.iter().sum::<i64>()
    }

    pub fn sum_positive(&self) -> i64 {
        self.sum().max(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_at_the_batch() {
        let mut c = RefPercpu::new(2, 4);
        c.add(0, 3);
        assert_eq!((c.read(), c.sum()), (0, 3));
        c.add(0, 1);
        assert_eq!((c.read(), c.slots.clone()), (4, vec![0, 0]));
        c.add(1, -9);
        assert_eq!((c.read(), c.read_positive(), c.sum_positive()), (-5, 0, 0));
    }
}
