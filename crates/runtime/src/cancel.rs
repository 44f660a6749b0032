//! Cancelling long work from outside it: a [`Cancel`] token that a caller sets (a Python
//! binding when the user presses Ctrl-C, a server when its client goes away) and that the
//! libraries' chunk loops poll between chunks.
//!
//! The token travels without a parameter: the caller runs the work inside
//! [`Cancel::scope`], which makes the token this thread's current one, and a library entry
//! point reads [`Cancel::current`] once and hands the clone to the threads it spawns (thread
//! locals do not cross into them). Outside any scope the current token is one that is never
//! set, and polling it costs one branch. Work that stops early returns
//! [`Cancelled`] (through its crate's error) where it has a `Result`, and otherwise leaves
//! its output incomplete: the caller that cancelled discards whatever comes back.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A cancellation flag shared by the caller that may set it and the work that polls it.
/// Cheap to clone (one reference count).
#[derive(Clone, Debug, Default)]
pub struct Cancel(Option<Arc<AtomicBool>>);

/// Work that stopped because its [`Cancel`] token was set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cancelled")]
pub struct Cancelled;

thread_local! {
    static CURRENT: RefCell<Cancel> = const { RefCell::new(Cancel(None)) };
}

impl Cancel {
    /// A new token, not set.
    pub fn new() -> Cancel {
        Cancel(Some(Arc::new(AtomicBool::new(false))))
    }

    /// A token that is never set (what [`Cancel::current`] gives outside a scope).
    pub fn never() -> Cancel {
        Cancel(None)
    }

    /// Asks every holder of this token to stop at its next poll.
    pub fn cancel(&self) {
        if let Some(flag) = &self.0 {
            flag.store(true, Ordering::Relaxed);
        }
    }

    /// Whether [`cancel`](Self::cancel) was called.
    #[inline]
    pub fn is_cancelled(&self) -> bool {
        self.0.as_ref().is_some_and(|f| f.load(Ordering::Relaxed))
    }

    /// `Err(Cancelled)` once the token is set.
    #[inline]
    pub fn check(&self) -> Result<(), Cancelled> {
        if self.is_cancelled() {
            Err(Cancelled)
        } else {
            Ok(())
        }
    }

    /// The token of the innermost [`scope`](Self::scope) on this thread, or one never set.
    pub fn current() -> Cancel {
        CURRENT.with(|c| c.borrow().clone())
    }

    /// Runs `work` with this token as the thread's current one (the previous one is put back
    /// afterwards, also when `work` panics).
    pub fn scope<R>(&self, work: impl FnOnce() -> R) -> R {
        struct Restore(Option<Cancel>);
        impl Drop for Restore {
            fn drop(&mut self) {
                if let Some(previous) = self.0.take() {
                    CURRENT.with(|c| *c.borrow_mut() = previous);
                }
            }
        }
        let previous = CURRENT.with(|c| c.replace(self.clone()));
        let _restore = Restore(Some(previous));
        work()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scope_makes_its_token_current_and_restores_the_previous_one() {
        assert!(!Cancel::current().is_cancelled());
        let outer = Cancel::new();
        let inner = Cancel::new();
        inner.cancel();
        outer.scope(|| {
            assert!(!Cancel::current().is_cancelled());
            inner.scope(|| assert_eq!(Cancel::current().check(), Err(Cancelled)));
            assert!(!Cancel::current().is_cancelled());
            outer.cancel();
            assert!(Cancel::current().is_cancelled());
        });
        assert!(!Cancel::current().is_cancelled());
        let panicked = std::panic::catch_unwind(|| inner.scope(|| panic!("inside")));
        assert!(panicked.is_err());
        assert!(!Cancel::current().is_cancelled(), "restored after a panic");
        Cancel::never().cancel();
        assert!(!Cancel::never().is_cancelled());
    }

    #[test]
    fn a_clone_handed_to_another_thread_sees_the_cancel() {
        let token = Cancel::new();
        let seen = token.scope(|| {
            let mine = Cancel::current();
            std::thread::scope(|s| {
                let h = s.spawn(move || {
                    while !mine.is_cancelled() {
                        std::thread::yield_now();
                    }
                    true
                });
                token.cancel();
                h.join().unwrap()
            })
        });
        assert!(seen);
    }
}
