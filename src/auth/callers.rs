//! The callers a server verified, kept in memory while the access revision stays put, and the
//! uses of their tokens, written to the database in batches rather than by each request.

use std::{
    collections::HashMap,
    sync::Arc,
    time::{Duration, SystemTime},
};

use super::{AuthError, AuthFailure, Caller, constant_time_eq, credential, hash_secret, verify};
use crate::storage::{Database, access, now_utc};

/// How long a change to who may call what (a revocation, a grant) can take to hold on a server
/// that keeps the caller in memory: the access revision is looked at most this often (D-02).
pub const REVISION_CHECK: std::time::Duration = std::time::Duration::from_millis(250);

/// The most callers a server keeps in memory; beyond, it starts again from none.
const KEPT: usize = 10_000;

/// How often a server writes the uses of tokens it recorded (and once more when it stops): the
/// "last used" of `token list` is at most this old for a server that runs on (D-02).
pub const LAST_USE_FLUSH: Duration = Duration::from_secs(60);

/// The callers this server verified, by token selector, with the stored hash of their secret,
/// kept while the access revision stays where it was when they were read.
#[derive(Debug)]
pub struct Callers {
    state: std::sync::RwLock<Kept>,
    /// Selectors of published tokens this server refuses (the demo's, outside `--demo`).
    published: Vec<String>,
    /// Token id → when this server last saw it used, not written yet.
    uses: std::sync::Mutex<HashMap<i64, SystemTime>>,
}

impl Default for Callers {
    /// Callers of a server that is not the demo: the demo's published token is refused.
    fn default() -> Callers {
        Callers::new(false)
    }
}

#[derive(Debug, Default)]
struct Kept {
    /// The access revision the callers were read at.
    revision: i64,
    /// When the revision was last looked at.
    checked: Option<std::time::Instant>,
    /// Selector → (hash of the secret, caller).
    callers: HashMap<String, (String, Arc<Caller>)>,
    /// Tokens refused at this revision (selector and hash of the secret): refused again without
    /// a lookup until the revision moves, so a flood of one unknown token costs one query.
    refused: std::collections::HashSet<(String, String)>,
}

impl Callers {
    /// The callers of a server; `demo`: the server runs `--demo`, the only kind that accepts the
    /// demo's published token.
    pub fn new(demo: bool) -> Callers {
        let published = if demo {
            Vec::new()
        } else {
            super::origin::published_selectors()
        };
        Callers {
            state: std::sync::RwLock::default(),
            published,
            uses: std::sync::Mutex::default(),
        }
    }

    /// Checks the `Authorization` header value and finds the caller: from memory when this
    /// server verified the token since the access revision last moved, else from the database.
    /// The token's use is recorded.
    pub async fn authenticate(
        &self,
        database: &Database,
        header: Option<&[u8]>,
    ) -> Result<Arc<Caller>, AuthError> {
        let (selector, secret) = credential(header)?;
        if self.published.iter().any(|published| published == selector) {
            return Err(AuthFailure::Unknown.into());
        }
        let revision = self.current(database).await?;
        let hash = hash_secret(secret);
        let caller = match self.remembered(selector, &hash)? {
            Some(caller) => caller,
            None => {
                self.verified(database, (selector, secret), hash, revision)
                    .await?
            }
        };
        self.uses().insert(caller.token_id, SystemTime::now());
        Ok(caller)
    }

    /// The caller kept for the token, if any; an error for a token refused at this revision, one
    /// whose secret differs from the kept one, or one that has expired since it was kept.
    fn remembered(&self, selector: &str, hash: &str) -> Result<Option<Arc<Caller>>, AuthError> {
        let kept = self.read();
        if let Some((stored, caller)) = kept.callers.get(selector) {
            let good = constant_time_eq(stored.as_bytes(), hash.as_bytes())
                && !(caller.expires_at.is_some() && caller.expired(&now_utc()));
            return if good {
                Ok(Some(Arc::clone(caller)))
            } else {
                Err(AuthFailure::Unknown.into())
            };
        }
        if kept
            .refused
            .contains(&(selector.to_string(), hash.to_string()))
        {
            return Err(AuthFailure::Unknown.into());
        }
        Ok(None)
    }

    /// Reads the token's caller from the database, keeping it (or its refusal) when the revision
    /// did not move meanwhile.
    async fn verified(
        &self,
        database: &Database,
        (selector, secret): (&str, &str),
        hash: String,
        revision: i64,
    ) -> Result<Arc<Caller>, AuthError> {
        let verified = verify(database, selector, secret).await;
        let mut kept = self.write();
        let (caller, stored) = match verified {
            Ok(verified) => verified,
            Err(AuthError::Failure(failure)) => {
                // A refusal read before the revision moved is not kept.
                if kept.revision == revision {
                    if kept.refused.len() >= KEPT {
                        kept.refused.clear();
                    }
                    kept.refused.insert((selector.to_string(), hash));
                }
                return Err(failure.into());
            }
            Err(error) => return Err(error),
        };
        let caller = Arc::new(caller);
        // A caller read before the revision moved is not kept.
        if kept.revision == revision {
            if kept.callers.len() >= KEPT {
                kept.callers.clear();
            }
            kept.callers
                .insert(selector.to_string(), (stored, Arc::clone(&caller)));
        }
        Ok(caller)
    }

    /// Writes the uses recorded since the last time (a later use written already stays); on
    /// failure they are kept for the next time.
    pub async fn flush_uses(&self, database: &Database) -> Result<(), sqlx::Error> {
        let uses = std::mem::take(&mut *self.uses());
        let mut pending = uses.into_iter();
        while let Some((token_id, at)) = pending.next() {
            let since = at
                .duration_since(SystemTime::UNIX_EPOCH)
                .unwrap_or_default();
            let text = crate::local_time::format_millis(
                i64::try_from(since.as_millis()).unwrap_or(i64::MAX),
            );
            if let Err(error) = access::record_use(database.writes(), token_id, &text).await {
                let mut uses = self.uses();
                for (token_id, at) in std::iter::once((token_id, at)).chain(pending) {
                    uses.entry(token_id).or_insert(at);
                }
                return Err(error);
            }
        }
        Ok(())
    }

    fn uses(&self) -> std::sync::MutexGuard<'_, HashMap<i64, SystemTime>> {
        self.uses
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The access revision the kept callers hold for: looked up when it was last looked at more
    /// than [`REVISION_CHECK`] ago, dropping every kept caller when it moved.
    async fn current(&self, database: &Database) -> Result<i64, AuthError> {
        let (revision, checked) = {
            let kept = self.read();
            (kept.revision, kept.checked)
        };
        if checked.is_some_and(|checked| checked.elapsed() < REVISION_CHECK) {
            return Ok(revision);
        }
        let now = access::revision(database).await?;
        let mut kept = self.write();
        if kept.revision != now || kept.checked.is_none() {
            kept.callers.clear();
            kept.refused.clear();
            kept.revision = now;
        }
        kept.checked = Some(std::time::Instant::now());
        Ok(kept.revision)
    }

    /// The selector of the token in an `Authorization` header value when this server verified
    /// it and keeps it, with no database work: the caller the rate limit counts (D-37). A token
    /// not kept (unknown, or not verified since the access revision moved) gives none.
    pub fn kept(&self, header: Option<&[u8]>) -> Option<String> {
        let (selector, secret) = credential(header).ok()?;
        let kept = self.read();
        let (stored, _) = kept.callers.get(selector)?;
        constant_time_eq(stored.as_bytes(), hash_secret(secret).as_bytes())
            .then(|| selector.to_string())
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Kept> {
        self.state
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Kept> {
        self.state
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
