//! Fair bot scheduling: every table waits for a decision slot in a queue of
//! its client, and free slots go round-robin over the clients with a table
//! waiting (and, within a client, to its tables in the order they asked).
//! One client holds at most [`ServerConfig::max_bot_threads_per_client`]
//! slots at once and spends at most its thinking budget
//! ([`ServerConfig::bot_budget_per_client`] per
//! [`ServerConfig::bot_budget_window`]), so however many slow bots one
//! client seats, other clients' bots find a slot free.
//!
//! [`ServerConfig::max_bot_threads_per_client`]: crate::ServerConfig::max_bot_threads_per_client
//! [`ServerConfig::bot_budget_per_client`]: crate::ServerConfig::bot_budget_per_client
//! [`ServerConfig::bot_budget_window`]: crate::ServerConfig::bot_budget_window

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

use crate::config::ServerConfig;
use crate::net::ClientKey;

/// Whose bots a table's decisions count against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Owner {
    /// The client address that created the table: its tables share one
    /// queue, its slot cap and its thinking budget.
    Client(ClientKey),
    /// A table no client is known for (resumed from disk, or served by an
    /// app without the peer's address): a queue of its own, held to no
    /// client's cap or budget.
    Table(u64),
}

impl Owner {
    /// A fresh owner for a table with no client.
    pub(crate) fn lone() -> Owner {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        Owner::Table(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// A client's thinking time: a bucket of `capacity` seconds refilled over
/// the window. It may go below zero by the decision that emptied it.
struct Budget {
    seconds: f64,
    at: Instant,
}

/// The queue of one owner and what it holds now.
#[derive(Default)]
struct Queue {
    waiting: VecDeque<oneshot::Sender<Slot>>,
    running: usize,
}

struct State {
    running: usize,
    /// Owners with a decision waiting, in the order they are served.
    turn: VecDeque<Owner>,
    queues: HashMap<Owner, Queue>,
    budgets: HashMap<ClientKey, Budget>,
    /// A wake-up is set for when a budget refills.
    timer: bool,
}

/// The scheduler of bot decisions shared by every table.
pub(crate) struct BotScheduler {
    state: Mutex<State>,
    slots: usize,
    per_client: usize,
    budget: f64,
    window: f64,
    runtime: Option<tokio::runtime::Handle>,
}

/// A decision slot; given back (and the thinking time charged to its
/// owner) when dropped.
pub(crate) struct Slot {
    scheduler: Arc<BotScheduler>,
    owner: Owner,
    since: Instant,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.scheduler.release(self.owner, self.since.elapsed());
    }
}

impl BotScheduler {
    pub(crate) fn new(config: &ServerConfig) -> Arc<BotScheduler> {
        Arc::new(BotScheduler {
            state: Mutex::new(State {
                running: 0,
                turn: VecDeque::new(),
                queues: HashMap::new(),
                budgets: HashMap::new(),
                timer: false,
            }),
            slots: config.bot_threads.max(1),
            per_client: config.max_bot_threads_per_client.max(1),
            budget: config.bot_budget_per_client.as_secs_f64(),
            window: config.bot_budget_window.as_secs_f64(),
            runtime: tokio::runtime::Handle::try_current().ok(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Waits for a slot for one decision of a table of `owner`. `None` if
    /// the scheduler is gone (cannot happen while the server runs).
    pub(crate) async fn slot(self: &Arc<Self>, owner: Owner) -> Option<Slot> {
        let (tx, rx) = oneshot::channel();
        {
            let mut state = self.lock();
            let queue = state.queues.entry(owner).or_default();
            queue.waiting.push_back(tx);
            if !state.turn.contains(&owner) {
                state.turn.push_back(owner);
            }
        }
        self.dispatch();
        rx.await.ok()
    }

    /// The seconds of thinking `key` has left now (refilled since last
    /// asked).
    fn refill(&self, budgets: &mut HashMap<ClientKey, Budget>, key: ClientKey, now: Instant) -> f64 {
        let b = budgets.entry(key).or_insert(Budget { seconds: self.budget, at: now });
        let rate = if self.window > 0.0 { self.budget / self.window } else { f64::INFINITY };
        let gained = now.saturating_duration_since(b.at).as_secs_f64() * rate;
        b.seconds = (b.seconds + gained).min(self.budget);
        b.at = now;
        b.seconds
    }

    /// Hands free slots out, round-robin over the owners waiting.
    fn dispatch(self: &Arc<Self>) {
        // Slots whose table stopped waiting come back here, to be dropped
        // once the lock is released (dropping one takes the lock).
        let mut unclaimed = Vec::new();
        let mut wake_in: Option<f64> = None;
        {
            let mut state = self.lock();
            let now = Instant::now();
            let mut skipped = 0;
            while state.running < self.slots && skipped < state.turn.len() {
                let Some(owner) = state.turn.pop_front() else { break };
                let Some(mut queue) = state.queues.remove(&owner) else { continue };
                let mut eligible = true;
                if let Owner::Client(key) = owner {
                    if queue.running >= self.per_client {
                        eligible = false;
                    } else {
                        let left = self.refill(&mut state.budgets, key, now);
                        if left <= 0.0 {
                            eligible = false;
                            let rate = if self.window > 0.0 { self.budget / self.window } else { f64::INFINITY };
                            let wait = (-left / rate).max(0.001);
                            wake_in = Some(wake_in.map_or(wait, |w| w.min(wait)));
                        }
                    }
                }
                if !eligible {
                    state.queues.insert(owner, queue);
                    state.turn.push_back(owner);
                    skipped += 1;
                    continue;
                }
                let Some(tx) = queue.waiting.pop_front() else {
                    if queue.running > 0 {
                        state.queues.insert(owner, queue);
                    }
                    continue;
                };
                queue.running += 1;
                state.running += 1;
                skipped = 0;
                let more = !queue.waiting.is_empty();
                state.queues.insert(owner, queue);
                if more {
                    state.turn.push_back(owner);
                }
                let slot = Slot { scheduler: self.clone(), owner, since: Instant::now() };
                if let Err(slot) = tx.send(slot) {
                    unclaimed.push(slot);
                }
            }
            if wake_in.is_some() && (state.timer || state.running >= self.slots) {
                wake_in = None;
            }
            if wake_in.is_some() {
                state.timer = true;
            }
        }
        drop(unclaimed);
        if let (Some(wait), Some(runtime)) = (wake_in, &self.runtime) {
            let this = self.clone();
            let wait = Duration::try_from_secs_f64(wait).unwrap_or(Duration::from_secs(1));
            runtime.spawn(async move {
                tokio::time::sleep(wait).await;
                this.lock().timer = false;
                this.dispatch();
            });
        }
    }

    /// Gives a slot back and charges its thinking time to its owner.
    fn release(self: &Arc<Self>, owner: Owner, took: Duration) {
        {
            let mut state = self.lock();
            state.running = state.running.saturating_sub(1);
            let remove = match state.queues.get_mut(&owner) {
                Some(q) => {
                    q.running = q.running.saturating_sub(1);
                    q.running == 0 && q.waiting.is_empty()
                }
                None => false,
            };
            if remove {
                state.queues.remove(&owner);
            }
            if let Owner::Client(key) = owner {
                let now = Instant::now();
                self.refill(&mut state.budgets, key, now);
                if let Some(b) = state.budgets.get_mut(&key) {
                    b.seconds -= took.as_secs_f64();
                }
            }
            // Forget the budgets that are whole again, of clients not waiting.
            let now = Instant::now();
            let idle: Vec<ClientKey> =
                state.budgets.keys().copied().filter(|k| !state.queues.contains_key(&Owner::Client(*k))).collect();
            for k in idle {
                if self.refill(&mut state.budgets, k, now) >= self.budget {
                    state.budgets.remove(&k);
                }
            }
        }
        self.dispatch();
    }

    /// How many slots are taken now (for tests).
    #[cfg(test)]
    fn running(&self) -> usize {
        self.lock().running
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(last: u8) -> Owner {
        Owner::Client(ClientKey::of(std::net::IpAddr::from([127, 0, 0, last])))
    }

    fn config(slots: usize, per_client: usize) -> ServerConfig {
        ServerConfig {
            bot_threads: slots,
            max_bot_threads_per_client: per_client,
            bot_budget_per_client: Duration::from_secs(3600),
            bot_budget_window: Duration::from_secs(3600),
            ..ServerConfig::default()
        }
    }

    /// Asks for a slot in the background; the receiver tells when it came.
    fn ask(s: &Arc<BotScheduler>, owner: Owner) -> tokio::sync::oneshot::Receiver<Slot> {
        let (tx, rx) = oneshot::channel();
        let s = s.clone();
        tokio::spawn(async move {
            if let Some(slot) = s.slot(owner).await {
                let _ = tx.send(slot);
            }
        });
        rx
    }

    async fn settle() {
        for _ in 0..50 {
            tokio::task::yield_now().await;
        }
    }

    #[tokio::test(flavor = "current_thread")]
    async fn slots_go_round_robin_over_clients() {
        let s = BotScheduler::new(&config(1, 1));
        let (a, b, c) = (key(1), key(2), key(3));
        let first = s.slot(a).await.unwrap();
        // A asks for three more decisions (three tables), then B and C one each.
        let mut order = Vec::new();
        let mut pending = Vec::new();
        for (who, o) in [("a1", a), ("a2", a), ("a3", a), ("b", b), ("c", c)] {
            pending.push((who, ask(&s, o)));
            settle().await;
        }
        drop(first);
        for _ in 0..5 {
            settle().await;
            let mut got = None;
            for (who, rx) in &mut pending {
                if let Ok(slot) = rx.try_recv() {
                    got = Some((*who, slot));
                }
            }
            let (who, slot) = got.expect("one decision runs");
            assert_eq!(s.running(), 1);
            order.push(who);
            drop(slot);
        }
        assert_eq!(order, ["a1", "b", "c", "a2", "a3"], "one of each client in turn, then the rest");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn one_client_holds_at_most_its_share() {
        let s = BotScheduler::new(&config(2, 1));
        let (a, b) = (key(1), key(2));
        let held = s.slot(a).await.unwrap();
        let mut more_a = ask(&s, a);
        settle().await;
        assert!(more_a.try_recv().is_err(), "A holds its one slot: its second decision waits");
        assert_eq!(s.running(), 1);
        let mut for_b = ask(&s, b);
        settle().await;
        let b_slot = for_b.try_recv().expect("B finds the slot A may not take");
        drop(held);
        settle().await;
        let _a2 = more_a.try_recv().expect("A's next decision runs once its first is done");
        drop(b_slot);
        // Tables without a client are held to no client's cap.
        let (x, y) = (Owner::lone(), Owner::lone());
        assert_ne!(x, y);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_spent_budget_waits_for_its_refill() {
        let mut c = config(2, 2);
        c.bot_budget_per_client = Duration::from_millis(50);
        c.bot_budget_window = Duration::from_secs(3600);
        let s = BotScheduler::new(&c);
        let (a, b) = (key(1), key(2));
        let slot = s.slot(a).await.unwrap();
        std::thread::sleep(Duration::from_millis(60));
        drop(slot);
        let mut again = ask(&s, a);
        settle().await;
        assert!(again.try_recv().is_err(), "A spent its budget: its next decision waits (an hour here)");
        assert_eq!(s.running(), 0, "with both slots free");
        let mut for_b = ask(&s, b);
        settle().await;
        assert!(for_b.try_recv().is_ok(), "B has its own budget");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_table_that_stops_waiting_gives_its_slot_back() {
        let s = BotScheduler::new(&config(1, 1));
        let a = Owner::lone();
        let held = s.slot(a).await.unwrap();
        let gone = ask(&s, Owner::lone());
        settle().await;
        drop(gone);
        drop(held);
        settle().await;
        assert_eq!(s.running(), 0);
        assert!(s.slot(key(9)).await.is_some(), "the slot is free again");
    }
}
