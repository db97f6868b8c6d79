//! Where a policy's per-slot arrays live: chosen by the caller, never by the library.
//!
//! Every policy keeps its queued requests in a handful of arrays with one
//! entry per slot (ids, cylinders, deadlines, list links, heap positions...).
//! A [`Storage`] value says how many slots there are and makes those arrays:
//!
//! - [`Inline<N>`]: fixed arrays `[T; N]` inside the policy value, for
//!   embedded users who allocate nothing. The capacity is checked at compile
//!   time; the policy is as large as its arrays, so a deep inline queue is a
//!   big value (about 60 bytes a slot) that lives wherever the caller puts it.
//! - `Boxed<N>` (feature `alloc`): boxed fixed arrays `Box<[T; N]>`
//!   allocated at their final place on the heap, so a 65,535-deep queue never
//!   crosses a stack frame and the policy value itself is a few pointers; the
//!   capacity is known at compile time, which keeps indexing as cheap as
//!   inline (within a few per cent in the `decision` benchmark).
//! - `Heap` (feature `alloc`): boxed slices of a capacity chosen at run time,
//!   for a driver that reads it from its configuration; each access loads
//!   the slice's length, which costs 8–16 % over inline storage.
//!
//! As in smoltcp, where a socket set runs on storage the caller supplies, the
//! policies are generic over the storage and otherwise identical: the same
//! code decides, only the memory differs.

use core::fmt;
use core::ops::{Index, IndexMut};

use crate::MAX_CAPACITY;

/// A supplier of per-slot arrays of one fixed length, the queue's capacity.
pub trait Storage {
    /// An array of [`Storage::capacity`] values of `T`.
    type Array<T: Copy>: AsRef<[T]> + AsMut<[T]> + Clone;

    /// The number of slots: how many requests a queue built on this storage holds.
    fn capacity(&self) -> usize;

    /// An array of [`Storage::capacity`] copies of `fill`.
    fn array<T: Copy>(&self, fill: T) -> Self::Array<T>;
}

/// Fixed arrays of `N` slots inside the policy value: no allocation at all.
///
/// Built with [`Inline::new`], which refuses a capacity of 0 or above
/// [`MAX_CAPACITY`] at compile time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Inline<const N: usize>(());

impl<const N: usize> Inline<N> {
    /// Inline storage of `N` slots.
    ///
    /// A capacity of 0 or above [`MAX_CAPACITY`] does not compile:
    ///
    /// ```compile_fail
    /// let _ = sched_core::Inline::<0>::new();
    /// ```
    pub const fn new() -> Self {
        const {
            assert!(
                N >= 1 && N <= MAX_CAPACITY,
                "a queue holds 1 ..= 65535 requests"
            )
        };
        Inline(())
    }
}

impl<const N: usize> Default for Inline<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> Storage for Inline<N> {
    type Array<T: Copy> = [T; N];

    #[inline]
    fn capacity(&self) -> usize {
        N
    }

    fn array<T: Copy>(&self, fill: T) -> [T; N] {
        [fill; N]
    }
}

/// Boxed slices allocated in place on the heap (feature `alloc`).
#[cfg(feature = "alloc")]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Heap {
    capacity: usize,
}

#[cfg(feature = "alloc")]
impl Heap {
    /// Heap storage of `capacity` slots.
    ///
    /// # Errors
    /// [`CapacityError`] for 0 or more than [`MAX_CAPACITY`] slots.
    pub const fn new(capacity: usize) -> Result<Self, CapacityError> {
        if capacity == 0 || capacity > MAX_CAPACITY {
            Err(CapacityError { capacity })
        } else {
            Ok(Heap { capacity })
        }
    }
}

#[cfg(feature = "alloc")]
impl Storage for Heap {
    type Array<T: Copy> = alloc::boxed::Box<[T]>;

    #[inline]
    fn capacity(&self) -> usize {
        self.capacity
    }

    fn array<T: Copy>(&self, fill: T) -> alloc::boxed::Box<[T]> {
        // `vec!` writes the elements in the allocation itself: no array of
        // `capacity` values is ever built on the stack.
        alloc::vec![fill; self.capacity].into_boxed_slice()
    }
}

/// Boxed fixed arrays `Box<[T; N]>` allocated in place on the heap (feature
/// `alloc`): a capacity known at compile time, like [`Inline`], with the
/// arrays off the policy value, like [`Heap`]. The fixed length lets the
/// compiler check indices against a constant.
#[cfg(feature = "alloc")]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Boxed<const N: usize>(());

#[cfg(feature = "alloc")]
impl<const N: usize> Boxed<N> {
    /// Boxed storage of `N` slots; a capacity of 0 or above [`MAX_CAPACITY`]
    /// does not compile.
    pub const fn new() -> Self {
        const {
            assert!(
                N >= 1 && N <= MAX_CAPACITY,
                "a queue holds 1 ..= 65535 requests"
            )
        };
        Boxed(())
    }
}

#[cfg(feature = "alloc")]
impl<const N: usize> Default for Boxed<N> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(feature = "alloc")]
impl<const N: usize> Storage for Boxed<N> {
    type Array<T: Copy> = BoxedArray<T, N>;

    #[inline]
    fn capacity(&self) -> usize {
        N
    }

    fn array<T: Copy>(&self, fill: T) -> BoxedArray<T, N> {
        let slice = alloc::vec![fill; N].into_boxed_slice();
        // The boxed slice has exactly N elements: the conversion reuses the
        // allocation and cannot fail.
        match slice.try_into() {
            Ok(array) => BoxedArray(array),
            Err(_) => unreachable!("a boxed slice of N elements"),
        }
    }
}

/// A per-slot array of [`Boxed`] storage: `N` values on the heap.
#[cfg(feature = "alloc")]
#[derive(Debug)]
pub struct BoxedArray<T, const N: usize>(alloc::boxed::Box<[T; N]>);

#[cfg(feature = "alloc")]
impl<T: Copy, const N: usize> Clone for BoxedArray<T, N> {
    fn clone(&self) -> Self {
        BoxedArray(self.0.clone())
    }
}

#[cfg(feature = "alloc")]
impl<T, const N: usize> AsRef<[T]> for BoxedArray<T, N> {
    #[inline(always)]
    fn as_ref(&self) -> &[T] {
        &self.0[..]
    }
}

#[cfg(feature = "alloc")]
impl<T, const N: usize> AsMut<[T]> for BoxedArray<T, N> {
    #[inline(always)]
    fn as_mut(&mut self) -> &mut [T] {
        &mut self.0[..]
    }
}

/// A capacity outside `1 ..= MAX_CAPACITY`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CapacityError {
    /// The capacity asked for.
    pub capacity: usize,
}

impl fmt::Display for CapacityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a queue holds 1 ..= {MAX_CAPACITY} requests, not {}",
            self.capacity
        )
    }
}

impl core::error::Error for CapacityError {}

/// One per-slot array from a [`Storage`], indexed like a plain array.
pub(crate) struct Slots<T: Copy, S: Storage>(S::Array<T>);

impl<T: Copy, S: Storage> Clone for Slots<T, S> {
    fn clone(&self) -> Self {
        Slots(self.0.clone())
    }
}

impl<T: Copy, S: Storage> Slots<T, S> {
    #[inline]
    pub(crate) fn new(storage: &S, fill: T) -> Self {
        Slots(storage.array(fill))
    }

    #[inline]
    pub(crate) fn as_slice(&self) -> &[T] {
        self.0.as_ref()
    }

    #[inline]
    pub(crate) fn as_mut_slice(&mut self) -> &mut [T] {
        self.0.as_mut()
    }
}

impl<T: Copy, const N: usize> Slots<T, Inline<N>> {
    /// The inline array `[fill; N]`, built in const context: the part of
    /// [`Slots::new`] a `static` policy can use, since a trait method such as
    /// [`Storage::array`] cannot be called there.
    #[inline]
    pub(crate) const fn inline(fill: T) -> Self {
        Slots([fill; N])
    }
}

impl<T: Copy, S: Storage> Index<usize> for Slots<T, S> {
    type Output = T;
    #[inline(always)]
    fn index(&self, i: usize) -> &T {
        &self.0.as_ref()[i]
    }
}

impl<T: Copy, S: Storage> IndexMut<usize> for Slots<T, S> {
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.0.as_mut()[i]
    }
}
