//! The Common module over HTTP: one file (or folder) per resource, each with its tests and its
//! answer scenarios; the snapshots of the module's answers are in `snapshots/` beside.

mod glossary;
mod keywords;
mod links;
mod locales;
mod messages;
mod transform;
