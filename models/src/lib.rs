//! wb-models: scenarios (thread programs + properties + expected verdicts) over wb-core, and the
//! loom and shuttle harnesses that check them.

/// The command line (clap, feature `clap`) and the JSON (serde, feature `serde`) spell an enum
/// with `ALL`, `name` and `from_name` by its `name`: one spelling everywhere, kept by the enum.
macro_rules! spelled_by_name {
    ($t:ty, $what:literal) => {
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.pad(self.name())
            }
        }

        #[cfg(feature = "clap")]
        impl clap::ValueEnum for $t {
            fn value_variants<'a>() -> &'a [Self] {
                &Self::ALL
            }

            fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
                Some(clap::builder::PossibleValue::new(self.name()))
            }
        }

        #[cfg(feature = "serde")]
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }

        #[cfg(feature = "serde")]
        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let name = String::deserialize(d)?;
                Self::from_name(&name).ok_or_else(|| {
                    serde::de::Error::custom(crate::scenario::unknown($what, &name, &Self::ALL.map(|v| v.name())))
                })
            }
        }
    };
}

pub mod bdev_slots;
pub mod bounds;
pub mod c11;
pub mod catalogue;
pub mod dontcache_accounting;
pub mod dontcache_kick;
pub mod flusher;
pub mod folio_dirty_accounting;
pub mod foreign_policy;
pub mod harness;
pub mod litmus;
pub mod outcome;
pub mod panic;
pub mod per_block_charge;
pub mod percpu_counter;
pub mod registry;
pub mod scenario;
pub mod scope;
pub mod wb_pin;
