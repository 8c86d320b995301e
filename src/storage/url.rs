//! Database URLs: which backend one names, the SQLite file made ready to open, and the URL fit
//! to print (without its password).

use std::path::Path;

use super::{Backend, StorageError};

/// A database URL fit to print: the password of `scheme://user:password@host` replaced by `***`.
pub fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    match authority.rsplit_once('@') {
        Some((credentials, host)) => match credentials.split_once(':') {
            Some((user, _)) => format!("{scheme}://{user}:***@{host}{}", &rest[authority.len()..]),
            None => url.to_string(),
        },
        None => url.to_string(),
    }
}

/// Recognises the backend and, for SQLite, creates the file's folder and asks for the file to be
/// created.
pub(super) fn prepare(url: &str) -> Result<(Backend, String), StorageError> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        return Ok((Backend::Postgres, url.to_string()));
    }
    let Some(rest) = url.strip_prefix("sqlite:") else {
        return Err(StorageError::UnsupportedUrl(without_password(url)));
    };
    let rest = rest.strip_prefix("//").unwrap_or(rest);
    let (file, query) = rest.split_once('?').unwrap_or((rest, ""));
    if file.is_empty() {
        return Err(StorageError::UnsupportedUrl(without_password(url)));
    }
    if file == ":memory:" {
        return Ok((Backend::Sqlite, "sqlite::memory:".to_string()));
    }
    if let Some(folder) = Path::new(file)
        .parent()
        .filter(|folder| !folder.as_os_str().is_empty())
    {
        std::fs::create_dir_all(folder).map_err(|source| StorageError::CreateFolder {
            path: file.to_string(),
            source,
        })?;
    }
    let mut options: Vec<&str> = query
        .split('&')
        .filter(|option| !option.is_empty())
        .collect();
    if !options.iter().any(|option| option.starts_with("mode=")) {
        options.push("mode=rwc");
    }
    Ok((
        Backend::Sqlite,
        format!("sqlite:{file}?{}", options.join("&")),
    ))
}

/// The file of a prepared SQLite URL ([`prepare`]), when it is one SQLite can open directly:
/// none for an in-memory database or a URL with options beyond `mode=ro|rw|rwc`.
pub(super) fn sqlite_file(prepared: &str) -> Option<std::path::PathBuf> {
    let rest = prepared.strip_prefix("sqlite:")?;
    let (file, query) = rest.split_once('?').unwrap_or((rest, ""));
    let plain = query
        .split('&')
        .filter(|option| !option.is_empty())
        .all(|option| matches!(option, "mode=ro" | "mode=rw" | "mode=rwc"));
    (plain && file != ":memory:" && !file.is_empty()).then(|| file.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_urls() {
        assert_eq!(
            prepare("postgres://u@h/db").map(|(b, _)| b).ok(),
            Some(Backend::Postgres)
        );
        assert_eq!(
            prepare("sqlite::memory:").map(|(_, u)| u).ok().as_deref(),
            Some("sqlite::memory:")
        );
        assert_eq!(
            prepare("sqlite://data/a.db")
                .map(|(_, u)| u)
                .ok()
                .as_deref(),
            Some("sqlite:data/a.db?mode=rwc")
        );
        assert!(matches!(
            prepare("mysql://h/db"),
            Err(StorageError::UnsupportedUrl(_))
        ));
        assert!(matches!(
            prepare("sqlite:"),
            Err(StorageError::UnsupportedUrl(_))
        ));
    }

    #[test]
    fn only_plain_sqlite_files_are_read_directly() {
        let file = |url: &str| prepare(url).ok().and_then(|(_, url)| sqlite_file(&url));
        assert_eq!(file("sqlite://data/a.db"), Some("data/a.db".into()));
        assert_eq!(file("sqlite:///srv/a.db?mode=rw"), Some("/srv/a.db".into()));
        assert_eq!(file("sqlite::memory:"), None);
        assert_eq!(file("sqlite:a.db?mode=memory&cache=shared"), None);
        assert_eq!(file("postgres://u@h/db"), None);
    }

    #[test]
    fn a_refused_url_is_printed_without_its_password() {
        let refused = prepare("mysql://core:s3cret@db:3306/core?ssl=1").map(|_| ());
        let Err(error) = refused else {
            panic!("mysql is refused")
        };
        assert_eq!(
            error.to_string(),
            "unsupported database URL 'mysql://core:***@db:3306/core?ssl=1': use sqlite:<file> or postgres://…"
        );
        assert_eq!(
            without_password("postgres://core:p@ss@db/core"),
            "postgres://core:***@db/core"
        );
        assert_eq!(without_password("postgres://db/core"), "postgres://db/core");
        assert_eq!(
            without_password("postgres://core@db/core"),
            "postgres://core@db/core"
        );
        assert_eq!(without_password("sqlite:data/a.db"), "sqlite:data/a.db");
    }
}
