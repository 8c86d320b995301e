//! XML bodies held to the XML Schema generated from the document (`core-v1.xsd`, which imports
//! `core-v1-briefing.xsd`) by `xmllint --schema` (Debian's `libxml2-utils`): what XML toolchains
//! read of the interface, checked by one of them. The runner checks every XML body a check
//! exchanges; the contract suite every one its tests exchange.

use std::{
    path::PathBuf,
    process::Command,
    sync::atomic::{AtomicU64, Ordering},
};

use core_api::document;

/// How many files one xmllint run reads at most.
const BATCH: usize = 256;

/// An XML body to check, and what it was, for the report.
#[derive(Debug, Clone)]
pub struct XmlBody {
    /// What the body was (`keywordsRetrieve: answer 200`).
    pub what: String,
    /// The body as sent or received.
    pub bytes: Vec<u8>,
}

impl XmlBody {
    /// The XML bodies of one exchange with `operation` that the schema holds: the request when
    /// the server took it (a 2xx answer; checks and tests send malformed XML on purpose), and
    /// the answer.
    pub fn of_exchange(
        operation: &str,
        request: Option<(&str, &[u8])>,
        status: u16,
        answer: (&str, &[u8]),
    ) -> Vec<XmlBody> {
        let mut bodies = Vec::new();
        if let Some((media, body)) = request
            && is_xml(media)
            && (200..300).contains(&status)
        {
            bodies.push(XmlBody {
                what: format!("the {operation} request"),
                bytes: body.to_vec(),
            });
        }
        let (media, body) = answer;
        if is_xml(media) && !body.is_empty() {
            bodies.push(XmlBody {
                what: format!("the {operation} answer {status}"),
                bytes: body.to_vec(),
            });
        }
        bodies
    }
}

/// Whether a media type is XML (`application/xml`, `text/xml`, `…+xml`, with or without
/// parameters).
pub fn is_xml(media_type: &str) -> bool {
    let essence = media_type.split(';').next().unwrap_or_default().trim();
    let essence = essence.to_ascii_lowercase();
    essence == "application/xml" || essence == "text/xml" || essence.ends_with("+xml")
}

/// A body the schema refuses, with xmllint's words.
#[derive(Debug, Clone)]
pub struct Invalid {
    /// What the body was.
    pub what: String,
    /// xmllint's messages about it.
    pub errors: String,
}

/// Why bodies cannot be checked.
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    /// No xmllint to run.
    #[error(
        "xmllint is not installed (Debian's libxml2-utils: apt-get install libxml2-utils); set XMLLINT to one"
    )]
    NoXmllint,
    /// The schema or a body could not be written, or xmllint not started.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// The XML Schema in a folder of its own, in a namespace, and the xmllint that reads it.
#[derive(Debug)]
pub struct XmlSchema {
    folder: PathBuf,
    xmllint: PathBuf,
    counter: AtomicU64,
}

impl XmlSchema {
    /// Writes the schema with the message roots in `namespace` (the server's `xml_namespace`,
    /// D-53) to a new temporary folder; `XMLLINT` names xmllint when it is not on the `PATH`.
    pub fn new(namespace: &str) -> Result<XmlSchema, SchemaError> {
        let xmllint = std::env::var_os("XMLLINT")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("xmllint"));
        let found = Command::new(&xmllint).arg("--version").output();
        if !matches!(found, Ok(output) if output.status.success()) {
            return Err(SchemaError::NoXmllint);
        }
        let folder =
            std::env::temp_dir().join(format!("core-xsd-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&folder)?;
        let namespace = quick_xml::escape::escape(namespace);
        let main = document::XSD.replace(document::XML_NAMESPACE_DEFAULT, &namespace);
        std::fs::write(folder.join(document::XSD_NAME), main)?;
        std::fs::write(
            folder.join(document::XSD_UNQUALIFIED_NAME),
            document::XSD_UNQUALIFIED,
        )?;
        Ok(XmlSchema {
            folder,
            xmllint,
            counter: AtomicU64::new(0),
        })
    }

    /// Checks the bodies; answers those the schema refuses (a body that is not well-formed XML
    /// among them), in their order.
    pub fn check(&self, bodies: &[XmlBody]) -> Result<Vec<Invalid>, SchemaError> {
        let mut files = Vec::with_capacity(bodies.len());
        for body in bodies {
            let file = self.file();
            std::fs::write(&file, &body.bytes)?;
            files.push(XmlFile {
                what: body.what.clone(),
                path: file,
            });
        }
        let invalid = self.check_files(&files);
        for file in &files {
            let _ = std::fs::remove_file(&file.path);
        }
        invalid
    }

    /// A new file name in the schema's folder, for a body to check.
    pub fn file(&self) -> PathBuf {
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        self.folder.join(format!("body-{n}.xml"))
    }

    /// Checks bodies written to files; answers those the schema refuses, in their order.
    pub fn check_files(&self, files: &[XmlFile]) -> Result<Vec<Invalid>, SchemaError> {
        let mut invalid = Vec::new();
        for batch in files.chunks(BATCH) {
            invalid.extend(self.check_batch(batch)?);
        }
        Ok(invalid)
    }

    fn check_batch(&self, files: &[XmlFile]) -> Result<Vec<Invalid>, SchemaError> {
        let output = Command::new(&self.xmllint)
            .args(["--noout", "--nonet", "--schema"])
            .arg(self.folder.join(document::XSD_NAME))
            .args(files.iter().map(|file| &file.path))
            .output()?;
        let said = String::from_utf8_lossy(&output.stderr);
        let mut invalid = Vec::new();
        for file in files {
            let name = file.path.display().to_string();
            if said.lines().any(|line| line == format!("{name} validates")) {
                continue;
            }
            let errors: Vec<&str> = said
                .lines()
                .filter_map(|line| line.strip_prefix(&name))
                .collect();
            invalid.push(Invalid {
                what: file.what.clone(),
                errors: errors.join("\n"),
            });
        }
        Ok(invalid)
    }
}

/// A body written to a file, and what it was.
#[derive(Debug, Clone)]
pub struct XmlFile {
    /// What the body was.
    pub what: String,
    /// Where it is.
    pub path: PathBuf,
}

impl Drop for XmlSchema {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}
