//! Patch revisions as selectable variants: broken and fixed code side by side.
//!
//! Each scenario declares its revisions in one [`catalogue!`] table (a file per scenario here).
//! A row gives the revision's name and summary, where it comes from ([`Provenance`]), what it is
//! for ([`Role`]), the knobs it selects, and the properties each checker is expected to find
//! violated. Everything else (the enum, its names, `wbcheck list`, the README catalogue, the
//! scenario headers' verdict tables) follows from the table; code that behaves differently per
//! revision matches on the knobs, or on the revision with no wildcard arm, so a new row that
//! needs new behaviour is a compile error where the behaviour is decided.
//!
//! Revision names follow the patch history of the mailing-list threads. Where a thread gives only
//! a changelog line, the buggy revision is a reconstruction that isolates that one defect. A
//! mutant is a deliberate single change that is not a posted revision (it shows what a property
//! rests on).

mod accounting;
mod block;
mod folio;
mod foreign;
mod kick;
mod percpu;
mod pin;
mod slots;

pub use accounting::*;
pub use block::*;
pub use folio::*;
pub use foreign::*;
pub use kick::*;
pub use percpu::*;
pub use pin::*;
pub use slots::*;

/// An expected pass, for the catalogue tables.
pub const PASS: Expect = Expect::PASS;

/// Everything a revision selects in the kernel code the core runs, in one value stored on the
/// `Bdi` (every function reaches it through the inode or wb it works on): the kick and its
/// consume, the kick's pinning, the accounting paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Knobs {
    pub kick: KickProtocol,
    pub pin: KickPin,
    pub accounting: Accounting,
    /// The dirty charge of an iomap mapping with per-block dirty state (scenario
    /// per-block-charge): when set, WB_RECLAIMABLE is charged and discharged, and the switch moves
    /// it with WB_DONTCACHE_DIRTY in one loop ([`crate::iomap::switch_dirty_stats`]); `None`
    /// leaves WB_RECLAIMABLE out and keeps the switch's own WB_DONTCACHE_DIRTY loop.
    pub block: Option<BlockKnobs>,
}

impl Knobs {
    /// v7 as applied.
    pub const V7: Knobs =
        Knobs { kick: KickProtocol::V7, pin: KickPin::GetWakePut, accounting: Accounting::V7, block: None };
}

impl From<BlockKnobs> for Knobs {
    fn from(block: BlockKnobs) -> Knobs {
        Knobs { block: Some(block), ..Knobs::V7 }
    }
}

impl From<KickProtocol> for Knobs {
    fn from(kick: KickProtocol) -> Knobs {
        Knobs { kick, ..Knobs::V7 }
    }
}

impl From<Accounting> for Knobs {
    fn from(accounting: Accounting) -> Knobs {
        Knobs { accounting, ..Knobs::V7 }
    }
}

/// Where a revision comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provenance {
    /// Code in the kernel the threads patch (6.12 unless the row says otherwise).
    Kernel,
    /// As posted on the list.
    Posted,
    /// As applied by the maintainer.
    Applied,
    /// Rebuilt from a changelog line (quoted): the one defect that line names, isolated.
    Reconstruction(&'static str),
    /// A deliberate single change that is not a posted revision.
    Mutant,
    /// A proposal from the threads' review, taken as model input.
    Review,
    /// Ours: a fix for a finding of this project.
    OurFix,
}

impl Provenance {
    pub fn name(self) -> &'static str {
        match self {
            Provenance::Kernel => "kernel",
            Provenance::Posted => "posted",
            Provenance::Applied => "applied",
            Provenance::Reconstruction(_) => "reconstruction",
            Provenance::Mutant => "mutant",
            Provenance::Review => "review",
            Provenance::OurFix => "our fix",
        }
    }
}

/// What a revision is for: a `Bug` must fail under some checker, a `Fix` or `Control` must pass
/// under every checker (the broken/fixed pairs of the kernel's litmus tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Bug,
    Fix,
    /// Shows a property does not fail for the wrong reason (a variant that must pass).
    Control,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Bug => "bug",
            Role::Fix => "fix",
            Role::Control => "control",
        }
    }
}

/// What one checker is expected to find in one revision: the properties it finds violated (empty:
/// it passes), those of them it may miss, for the shuttle checkers how many times the tier's
/// iterations it runs (`WBCHECK_SHUTTLE_ITERS`, models/src/bounds.rs) to find them with every seed,
/// and what it finds at the deep tier where its larger bounds reach further.
///
/// A property the checker may miss is one it can find but not with every seed at the tier's
/// bounds: the matrix accepts the row with or without it and lists it as "may miss (not counted)";
/// another checker of the row must find it reliably (checks/tests/expectations.rs holds that).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expect {
    /// Every property the checker is expected to find violated, the ones it may miss included.
    pub violated: &'static [&'static str],
    /// The properties of `violated` the checker may miss.
    pub may_miss: &'static [&'static str],
    /// Shuttle checkers: the row runs this many times the tier's iterations (at least 1).
    pub shuttle_scale: usize,
    /// The properties the checker finds violated at the deep tier, where they differ from
    /// `violated` (a bug the quick and scope tiers' bounds do not reach); `None`: the same.
    pub deep: Option<&'static [&'static str]>,
}

impl Expect {
    /// Expected to pass: no property violated.
    pub const PASS: Expect = Expect::fails(&[]);

    /// Expected to find exactly these properties violated, with every seed.
    pub const fn fails(violated: &'static [&'static str]) -> Expect {
        Expect { violated, may_miss: &[], shuttle_scale: 1, deep: None }
    }

    /// The same, except that the checker may miss `properties` (a subset of `violated`).
    pub const fn may_miss(self, properties: &'static [&'static str]) -> Expect {
        Expect { may_miss: properties, ..self }
    }

    /// The same, at `scale` times the tier's shuttle iterations.
    pub const fn shuttle_scale(self, scale: usize) -> Expect {
        Expect { shuttle_scale: scale, ..self }
    }

    /// The same, except that at the deep tier the checker finds `violated` (with every seed).
    pub const fn deep(self, violated: &'static [&'static str]) -> Expect {
        Expect { deep: Some(violated), ..self }
    }

    /// What the checker is expected to find at the deep tier (`deep` true) or below it.
    pub const fn at(self, deep: bool) -> Expect {
        match self.deep {
            Some(violated) if deep => Expect { violated, may_miss: &[], deep: None, ..self },
            _ => Expect { deep: None, ..self },
        }
    }
}

/// What each checker is expected to find, in the order loom, shuttle-pct, shuttle-random, oracle.
pub type Expected = [Expect; 4];

/// One row of a scenario's catalogue.
#[derive(Debug)]
pub struct Row<R: 'static, K: 'static> {
    pub revision: R,
    pub name: &'static str,
    pub summary: &'static str,
    pub provenance: Provenance,
    pub role: Role,
    pub knobs: K,
    pub expected: Expected,
}

/// A scenario's revision enum, with its catalogue.
pub trait Revision: Copy + Eq + std::fmt::Debug + Send + Sync + 'static {
    /// What the revision selects in the core (`()` where the core matches the revision itself).
    type Knobs: Copy + 'static;
    /// The scenario the catalogue belongs to.
    const SCENARIO: &'static str;
    /// Every revision, in catalogue order.
    const CATALOGUE: &'static [Row<Self, Self::Knobs>];

    fn row(self) -> &'static Row<Self, Self::Knobs>;

    fn all() -> impl Iterator<Item = Self> {
        Self::CATALOGUE.iter().map(|r| r.revision)
    }

    fn name(self) -> &'static str {
        self.row().name
    }

    fn summary(self) -> &'static str {
        self.row().summary
    }

    fn knobs(self) -> Self::Knobs {
        self.row().knobs
    }

    fn from_name(name: &str) -> Option<Self> {
        Self::CATALOGUE.iter().find(|r| r.name == name).map(|r| r.revision)
    }
}

/// A scenario's catalogue: the revision enum and its table, one row per variant.
///
/// ```text
/// catalogue! {
///     /// doc
///     pub enum KickRevision for "dontcache-kick", knobs KickProtocol {
///         /// doc
///         V7 {
///             name: "v7", summary: "...", provenance: Provenance::Applied, role: Role::Bug,
///             knobs: KickProtocol::V7, expected: [LW, LW, LW, PASS],
///         },
///     }
/// }
/// ```
#[macro_export]
macro_rules! catalogue {
    (
        $(#[$meta:meta])*
        pub enum $enum:ident for $scenario:literal, knobs $knobs:ty {
            $(
                $(#[$vmeta:meta])*
                $variant:ident {
                    name: $name:literal,
                    summary: $summary:expr,
                    provenance: $provenance:expr,
                    role: $role:expr,
                    knobs: $k:expr,
                    expected: $expected:expr $(,)?
                }
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $enum {
            $( $(#[$vmeta])* $variant, )*
        }

        impl $enum {
            /// Every revision, in catalogue order.
            pub const ALL: [$enum; [$(stringify!($variant)),*].len()] = [$($enum::$variant),*];

            pub fn name(self) -> &'static str {
                <Self as $crate::revision::Revision>::name(self)
            }

            pub fn summary(self) -> &'static str {
                <Self as $crate::revision::Revision>::summary(self)
            }

            pub fn knobs(self) -> $knobs {
                <Self as $crate::revision::Revision>::knobs(self)
            }

            pub fn from_name(name: &str) -> Option<Self> {
                <Self as $crate::revision::Revision>::from_name(name)
            }
        }

        impl $crate::revision::Revision for $enum {
            type Knobs = $knobs;
            const SCENARIO: &'static str = $scenario;
            const CATALOGUE: &'static [$crate::revision::Row<Self, $knobs>] = &[$(
                $crate::revision::Row {
                    revision: $enum::$variant,
                    name: $name,
                    summary: $summary,
                    provenance: $provenance,
                    role: $role,
                    knobs: $k,
                    expected: $expected,
                },
            )*];

            fn row(self) -> &'static $crate::revision::Row<Self, $knobs> {
                &Self::CATALOGUE[self as usize]
            }
        }
    };
}
