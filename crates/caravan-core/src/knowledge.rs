//! What each seat knows (C-8). Caravan is a game of perfect information
//! with chance: everything on the board, in the supplies, piles and marker
//! stocks is public, and so is the bag as a multiset (C-8.1); nothing else
//! exists — the state holds no generator and no future draw (C-8.2). So a
//! seat knows the whole state: the observation (`observation`) is the whole
//! position, and the only state consistent with what a seat knows is the
//! state itself, which is what determinization returns. Every action is
//! seen by everyone, seats and spectators: a player's action changes only
//! public facts, and a chance draw puts a good of a kind onto a numbered
//! space, where everyone sees it (C-8.1).

use boardgame_kit::Viewer;

use crate::action::Action;
use crate::state::Caravan;

impl Caravan {
    /// A state consistent with everything `observer` knows (C-8.2: nothing
    /// is hidden, so it is a copy of this one).
    #[inline]
    pub(crate) fn determinized(&self) -> Caravan {
        *self
    }

    /// What `viewer` learns of `action` played in this state: the action
    /// itself, for every viewer, draws included (C-8.1: everything an
    /// action changes is public).
    #[inline]
    pub(crate) fn seen_action(&self, _viewer: Viewer, action: Action) -> Option<Action> {
        Some(action)
    }
}
