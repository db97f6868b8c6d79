//! The grammar of policy descriptions, as written on a command line or in a
//! configuration file: [`PolicySpec`] for one disk (`ssedo:m=3,beta=2`),
//! [`ArraySpec`] for an array (`cmq:common=ssedo(m=3,beta=2),aux=sstf`).
//! Parsing checks parameters against each policy's constructor; building
//! lives with the policies ([`crate::AnyScheduler`],
//! `array::AnyArray` with feature `alloc`).

mod array;
mod policy;

pub use array::{ArraySpec, ArraySpecError, Routing};
pub(crate) use policy::same_name as same_name_of;
pub use policy::{PolicySpec, SpecError};
