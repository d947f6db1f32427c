//! [`ActionList`]: the fixed-capacity list legal actions are written into.

use std::fmt;
use std::ops::Deref;

use boardgame_kit::ActionBuffer;

use crate::action::Action;
use crate::state::ACTION_LIST_CAPACITY;

/// The legal-action list of Caravan: a fixed array of
/// [`ACTION_LIST_CAPACITY`] actions (plus slack) and a length, dereferencing
/// to the slice of actions written. It implements the kit's
/// [`boardgame_kit::ActionBuffer`] like `arrayvec::ArrayVec` does, and adds
/// bulk writes: most of a position's ~200 actions are camel moves (C-5.1),
/// 48 or 49 consecutive ids per source when two actions are left, or the
/// same free squares from every source when one is left. Those are written
/// as fixed-size vectorised blocks instead of one checked push per action,
/// without data-dependent loop counts. It never allocates; a push beyond the
/// capacity (impossible by the worst case of C-5) is ignored rather than
/// panicking.
#[derive(Clone)]
pub struct ActionList {
    len: usize,
    /// Slack past the capacity lets runs and blocks be written in whole
    /// fixed-size chunks, without data-dependent loop counts (the surplus is
    /// overwritten or ignored).
    buf: [Action; BUF],
}

/// A whole block of targets (49 squares) rounded up to whole chunks.
const BLOCK: usize = 56;
const BUF: usize = ACTION_LIST_CAPACITY + 2 * BLOCK;

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
    /// Appends the 49 actions `base..base + 49` (every target square) with
    /// fixed-size writes.
    #[inline]
    pub(crate) fn push_block(&mut self, base: u32) {
        self.write_block(self.len, base);
        self.len = (self.len + crate::board::SQUARES).min(ACTION_LIST_CAPACITY);
    }

    /// Appends the 48 actions `base + t` for every target `t != skip`.
    #[inline]
    pub(crate) fn push_block_except(&mut self, base: u32, skip: u32) {
        let at = self.len;
        self.write_block(at, base);
        // overwrite from the skipped slot on with the ids after it
        self.write_block(at + skip as usize, base + skip + 1);
        self.len = (at + crate::board::SQUARES - 1).min(ACTION_LIST_CAPACITY);
    }

    #[inline]
    fn write_block(&mut self, at: usize, first: u32) {
        if let Some(block) = self.buf.get_mut(at..at + BLOCK) {
            for (j, slot) in block.iter_mut().enumerate() {
                *slot = Action::raw(first + j as u32);
            }
        }
    }

    /// Appends a copy of the `count` actions written from index `start`,
    /// their ids shifted by `delta` (wrapping): the same target squares from
    /// another source, as a vectorised copy-and-add.
    #[inline]
    pub(crate) fn push_shifted(&mut self, start: usize, count: usize, delta: u32) {
        // `count` ≤ 49 (one source's targets): copy a whole block, advance
        // by `count`
        let mut block = [Action::END; BLOCK];
        if let Some(src) = self.buf.get(start..start + BLOCK) {
            block.copy_from_slice(src);
        }
        if let Some(dst) = self.buf.get_mut(self.len..self.len + BLOCK) {
            for (d, s) in dst.iter_mut().zip(&block) {
                *d = Action::raw(s.id().wrapping_add(delta));
            }
        }
        self.len = (self.len + count.min(BLOCK)).min(ACTION_LIST_CAPACITY);
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
        for id in 100..103 {
            l.push(Action::raw(id));
        }
        l.push(Action::END);
        l.push_mask(200, 0b1011_0001);
        l.push_mask(7, 0);
        assert_eq!(ids(&l), [100, 101, 102, 8, 200, 204, 205, 207]);
        l.push_shifted(4, 4, 10);
        assert_eq!(ids(&l)[8..], [210, 214, 215, 217]);
        l.push_shifted(0, 2, 5u32.wrapping_neg());
        assert_eq!(ids(&l)[12..], [95, 96]);
        l.clear();
        l.push_block(17);
        l.push_block_except(100, 0);
        l.push_block_except(200, 20);
        l.push_block_except(300, 48);
        let v = ids(&l);
        assert_eq!(v.len(), 49 + 3 * 48);
        assert_eq!(v[..49], (17..66).collect::<Vec<_>>()[..]);
        assert_eq!(v[49..97], (101..149).collect::<Vec<_>>()[..]);
        assert_eq!(v[97..145], (200..249).filter(|&i| i != 220).collect::<Vec<_>>()[..]);
        assert_eq!(v[145..], (300..348).collect::<Vec<_>>()[..]);
        assert_eq!(format!("{l:?}").matches("Action(").count(), 49 + 3 * 48);
        let copy = l.clone();
        assert_eq!(copy, l);
        l.clear();
        assert!(l.is_empty());
        assert_eq!(l.capacity(), ACTION_LIST_CAPACITY);
    }

    #[test]
    fn never_grows_past_its_capacity() {
        let mut l = ActionList::default();
        for _ in 0..ACTION_LIST_CAPACITY / 48 + 2 {
            l.push_block_except(17, 3);
        }
        assert_eq!(l.len(), ACTION_LIST_CAPACITY);
        l.push(Action::END);
        l.push_block(0);
        l.push_mask(0, u64::MAX >> 15);
        l.push_shifted(0, 40, 1);
        assert_eq!(l.len(), ACTION_LIST_CAPACITY);
        assert!(l.iter().all(|a| (17..66).contains(&a.id()) && a.id() != 20));
    }
}
