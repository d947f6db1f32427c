//! [`ActionList`]: the fixed-capacity list legal actions are written into.

use std::fmt;
use std::ops::Deref;

use boardgame_kit::ActionBuffer;

use crate::action::Action;
use crate::state::ACTION_LIST_CAPACITY;

/// The legal-action list of Caravan: a fixed array of
/// [`ACTION_LIST_CAPACITY`] actions and a length, dereferencing to the slice
/// of actions written. It implements the kit's
/// [`boardgame_kit::ActionBuffer`] like `arrayvec::ArrayVec` does, and adds
/// bulk writes of id runs: most of a position's ~200 actions are camel moves
/// whose ids are consecutive, and writing a run is a vectorised loop instead
/// of one checked push per action. It never allocates; a push beyond the
/// capacity (impossible by the worst case of C-5) is ignored rather than
/// panicking.
#[derive(Clone)]
pub struct ActionList {
    len: usize,
    /// `CHUNK` slots of slack past the capacity let a run be written in
    /// whole chunks of `CHUNK` (the surplus is overwritten or ignored).
    buf: [Action; BUF],
}

const CHUNK: usize = 8;
const BUF: usize = ACTION_LIST_CAPACITY + CHUNK;

impl Default for ActionList {
    fn default() -> Self {
        ActionList { len: 0, buf: [Action::END; BUF] }
    }
}

impl fmt::Debug for ActionList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for ActionList {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for ActionList {}

impl Deref for ActionList {
    type Target = [Action];
    #[inline]
    fn deref(&self) -> &[Action] {
        &self.buf[..self.len.min(ACTION_LIST_CAPACITY)]
    }
}

impl ActionBuffer<Action> for ActionList {
    #[inline]
    fn clear(&mut self) {
        self.len = 0;
    }
    #[inline]
    fn push(&mut self, item: Action) {
        if self.len < ACTION_LIST_CAPACITY
            && let Some(slot) = self.buf.get_mut(self.len)
        {
            *slot = item;
            self.len += 1;
        }
    }
    #[inline]
    fn capacity(&self) -> usize {
        ACTION_LIST_CAPACITY
    }
}

impl ActionList {
    /// Appends the actions with ids `first..first + count` (clipped at the
    /// capacity).
    #[inline]
    pub(crate) fn push_run(&mut self, first: u32, count: usize) {
        let end = (self.len + count).min(ACTION_LIST_CAPACITY);
        let mut at = self.len;
        let mut id = first;
        // whole chunks (the slack absorbs the last one's surplus): runs are
        // mostly short, and a fixed-width chunk is two vector stores
        while at < end {
            if let Some(chunk) = self.buf.get_mut(at..at + CHUNK) {
                for (j, slot) in chunk.iter_mut().enumerate() {
                    *slot = Action::raw(id + j as u32);
                }
            }
            at += CHUNK;
            id += CHUNK as u32;
        }
        self.len = end;
    }

    /// Appends the actions `base + i` for every set bit `i` of `mask`, one
    /// write per bit with the length kept in a register.
    #[inline]
    pub(crate) fn push_mask(&mut self, base: u32, mut mask: u64) {
        let mut n = self.len;
        while mask != 0 {
            let t = mask.trailing_zeros();
            mask &= mask - 1;
            if let Some(slot) = self.buf.get_mut(n) {
                *slot = Action::raw(base + t);
            }
            n += 1;
        }
        self.len = n.min(ACTION_LIST_CAPACITY);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(l: &ActionList) -> Vec<u32> {
        l.iter().map(|a| a.id()).collect()
    }

    #[test]
    fn runs_masks_and_pushes() {
        let mut l = ActionList::default();
        assert!(l.is_empty());
        l.push_run(100, 3);
        l.push(Action::END);
        l.push_mask(200, 0b1011_0001);
        l.push_run(7, 0);
        assert_eq!(ids(&l), [100, 101, 102, 8, 200, 204, 205, 207]);
        assert_eq!(format!("{l:?}").matches("Action(").count(), 8);
        let copy = l.clone();
        assert_eq!(copy, l);
        l.clear();
        assert!(l.is_empty());
        assert_eq!(l.capacity(), ACTION_LIST_CAPACITY);
    }

    #[test]
    fn never_grows_past_its_capacity() {
        let mut l = ActionList::default();
        for _ in 0..ACTION_LIST_CAPACITY / 40 + 2 {
            l.push_run(17, 40);
        }
        assert_eq!(l.len(), ACTION_LIST_CAPACITY);
        l.push(Action::END);
        l.push_mask(0, u64::MAX >> 15);
        assert_eq!(l.len(), ACTION_LIST_CAPACITY);
        assert!(l.iter().all(|a| (17..57).contains(&a.id())));
    }
}
