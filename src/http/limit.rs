//! The per-caller rate limit (`--rate-limit`, `--rate-burst`, D-37): each caller may send
//! `per_second` requests a second on average and `burst` at once after a pause; beyond, 429 with
//! `Retry-After`. A caller is a token, or, for a request without a valid one, the peer's
//! address. A request with a token this server keeps verified is counted for the token before
//! anything else is done (`app.rs`); any other is let through only while its address is within
//! its limit, and counted once authentication has said which it is (`host.rs`): for its token
//! when that is valid, else for its address. So a flood of unknown tokens is held back by its
//! address before it costs lookups, and callers behind one address are not charged for each
//! other.
//!
//! The limit is a generic cell rate algorithm: per caller one instant, the theoretical arrival
//! time of its next request. A request is admitted when that time is at most `burst - 1`
//! intervals ahead of now, and pushes it one interval further. Callers whose time has passed are
//! back at a full burst and are forgotten when the table grows, so the table holds only callers
//! that sent requests within the last `burst / per_second` seconds. The counts are this
//! instance's own: behind a load balancer each instance admits its share.

use std::{
    collections::HashMap,
    net::IpAddr,
    sync::Mutex,
    time::{Duration, Instant},
};

use crate::settings::RateLimit;

/// Who a request is counted for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Caller {
    /// A verified token, by its selector.
    Token(String),
    /// A request without a verified token, by the peer's address.
    Peer(IpAddr),
}

/// How many callers the table holds before it forgets those at a full burst.
const PRUNE_AT: usize = 65_536;

/// The rate limit of one server.
#[derive(Debug)]
pub struct Limiter {
    limit: RateLimit,
    /// The time between two requests at the sustained rate.
    interval: Duration,
    /// How far ahead of now a caller's next time may be: `burst - 1` intervals.
    tolerance: Duration,
    next: Mutex<HashMap<Caller, Instant>>,
}

impl Limiter {
    /// A limiter for `limit` (off when its rate is 0).
    pub fn new(limit: RateLimit) -> Limiter {
        let interval = if limit.is_on() {
            Duration::from_secs(1) / limit.per_second
        } else {
            Duration::ZERO
        };
        Limiter {
            limit,
            interval,
            tolerance: interval * limit.burst.saturating_sub(1),
            next: Mutex::new(HashMap::new()),
        }
    }

    /// The limit it enforces.
    pub fn limit(&self) -> RateLimit {
        self.limit
    }

    /// Admits a request of `caller` now, or says how long it must wait.
    pub fn admit(&self, caller: Caller) -> Result<(), Duration> {
        self.admit_at(caller, Instant::now())
    }

    /// Whether a request of `caller` would be admitted now, without counting it: how long it
    /// must wait otherwise.
    pub fn check(&self, caller: &Caller) -> Result<(), Duration> {
        if !self.limit.is_on() {
            return Ok(());
        }
        let now = Instant::now();
        let next = self
            .next
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let ahead = next
            .get(caller)
            .map_or(Duration::ZERO, |at| at.saturating_duration_since(now));
        self.within(ahead)
    }

    /// Whether a caller whose next time is `ahead` of now may send: how long it must wait
    /// otherwise.
    fn within(&self, ahead: Duration) -> Result<(), Duration> {
        match ahead.checked_sub(self.tolerance) {
            Some(wait) if !wait.is_zero() => Err(wait),
            _ => Ok(()),
        }
    }

    fn admit_at(&self, caller: Caller, now: Instant) -> Result<(), Duration> {
        if !self.limit.is_on() {
            return Ok(());
        }
        let mut next = self
            .next
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if next.len() >= PRUNE_AT {
            next.retain(|_, at| *at > now);
        }
        let at = next.entry(caller).or_insert(now);
        let due = (*at).max(now);
        self.within(due - now)?;
        *at = due + self.interval;
        Ok(())
    }
}

/// The address of a request whose token this server has not verified yet, put in the request's
/// extensions by the admission so that authentication can count the request.
#[derive(Debug, Clone, Copy)]
pub struct Unverified(pub IpAddr);

#[cfg(test)]
mod tests {
    use super::*;

    fn limiter(per_second: u32, burst: u32) -> Limiter {
        Limiter::new(RateLimit { per_second, burst })
    }

    #[test]
    fn a_burst_passes_then_the_rate_holds() {
        let limiter = limiter(10, 5);
        let caller = || Caller::Token("a".into());
        let start = Instant::now();
        for _ in 0..5 {
            assert!(limiter.admit_at(caller(), start).is_ok());
        }
        let wait = limiter
            .admit_at(caller(), start)
            .expect_err("beyond the burst");
        assert_eq!(wait, Duration::from_millis(100));
        // One interval later one more passes, and only one.
        let later = start + Duration::from_millis(100);
        assert!(limiter.admit_at(caller(), later).is_ok());
        assert!(limiter.admit_at(caller(), later).is_err());
    }

    #[test]
    fn callers_are_counted_apart_and_off_admits_all() {
        let limiter = limiter(1, 1);
        let now = Instant::now();
        assert!(limiter.admit_at(Caller::Token("a".into()), now).is_ok());
        assert!(limiter.admit_at(Caller::Token("a".into()), now).is_err());
        assert!(limiter.admit_at(Caller::Token("b".into()), now).is_ok());
        let peer = Caller::Peer(IpAddr::from([127, 0, 0, 1]));
        assert!(limiter.admit_at(peer.clone(), now).is_ok());
        assert!(limiter.admit_at(peer, now).is_err());
        let off = Limiter::new(RateLimit::OFF);
        for _ in 0..1000 {
            assert!(off.admit_at(Caller::Token("a".into()), now).is_ok());
        }
    }

    #[test]
    fn the_table_forgets_callers_at_a_full_burst() {
        let limiter = limiter(1000, 1);
        let now = Instant::now();
        for index in 0..PRUNE_AT {
            let _ = limiter.admit_at(Caller::Token(index.to_string()), now);
        }
        let later = now + Duration::from_secs(1);
        assert!(limiter.admit_at(Caller::Token("new".into()), later).is_ok());
        assert_eq!(limiter.next.lock().map(|next| next.len()).unwrap_or(0), 1);
    }
}
