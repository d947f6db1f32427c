//! What each seat knows (C-8). Caravan is a game of perfect information
//! with chance: everything on the board, in the supplies, piles and marker
//! stocks is public, and so is the bag as a multiset (C-8.1); nothing else
//! exists — the state holds no generator and no future draw (C-8.2). So a
//! seat knows the whole state: the observation (`observation`) is the whole
//! position, and the only state consistent with what a seat knows is the
//! state itself, which is what determinization returns.

use crate::state::Caravan;

impl Caravan {
    /// A state consistent with everything `observer` knows (C-8.2: nothing
    /// is hidden, so it is a copy of this one).
    #[inline]
    pub(crate) fn determinized(&self) -> Caravan {
        *self
    }
}
