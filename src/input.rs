//! Reading a named input file safely, for every command: only a regular file is read (a FIFO,
//! socket or device named as a path would block forever or never end), its size is checked from
//! the open file's metadata before any byte is read, and at most `limit + 1` bytes are ever read
//! (a file that grows while it is read is still refused), so a 2 GB file costs one `fstat`, not
//! 2 GB of memory.

use std::io::Read;
use std::path::Path;

/// Why a named input could not be read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("{path}: cannot read: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{path}: not a regular file (it is {kind}); name a file (or, where the command takes one, a folder)"
    )]
    NotRegular { path: String, kind: &'static str },
    #[error("{path}: the file is {size} bytes, over the limit of {limit} bytes")]
    TooLarge { path: String, size: u64, limit: u64 },
}

impl InputError {
    /// The path refused, as the message names it.
    ///
    /// ```
    /// use primgraph::InputError;
    ///
    /// let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("graphs");
    /// let refused = InputError::not_regular(&folder, std::fs::metadata(&folder).unwrap().file_type());
    /// assert_eq!(refused.path(), folder.display().to_string());
    /// ```
    pub fn path(&self) -> &str {
        match self {
            InputError::Io { path, .. }
            | InputError::NotRegular { path, .. }
            | InputError::TooLarge { path, .. } => path,
        }
    }

    /// The refusal of `path`, which is not a regular file but of `file_type` (from its
    /// metadata), before it is opened.
    ///
    /// ```
    /// use primgraph::InputError;
    ///
    /// let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("graphs");
    /// let refused = InputError::not_regular(&folder, std::fs::metadata(&folder).unwrap().file_type());
    /// assert!(refused.to_string().contains("a folder"), "{refused}");
    /// ```
    pub fn not_regular(path: &Path, file_type: std::fs::FileType) -> InputError {
        InputError::NotRegular {
            path: path.display().to_string(),
            kind: kind_of(file_type),
        }
    }
}

/// What a non-regular file is, for the message.
pub fn kind_of(file_type: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if file_type.is_socket() {
            return "a socket";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
    }
    if file_type.is_dir() {
        "a folder"
    } else if file_type.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// Read `path` whole if it is a regular file of at most `limit` bytes.
pub fn read_capped(path: &Path, limit: usize) -> Result<Vec<u8>, InputError> {
    let shown = || path.display().to_string();
    let io = |source| InputError::Io {
        path: shown(),
        source,
    };
    // Check the type before opening: opening a FIFO for reading blocks until a writer comes.
    let metadata = std::fs::metadata(path).map_err(io)?;
    if !metadata.is_file() {
        return Err(InputError::NotRegular {
            path: shown(),
            kind: kind_of(metadata.file_type()),
        });
    }
    let file = std::fs::File::open(path).map_err(io)?;
    // The open file's own metadata: the path may have been swapped since the check above.
    let metadata = file.metadata().map_err(io)?;
    if !metadata.is_file() {
        return Err(InputError::NotRegular {
            path: shown(),
            kind: kind_of(metadata.file_type()),
        });
    }
    let limit = limit as u64;
    if metadata.len() > limit {
        return Err(InputError::TooLarge {
            path: shown(),
            size: metadata.len(),
            limit,
        });
    }
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(InputError::TooLarge {
            path: shown(),
            size: bytes.len() as u64,
            limit,
        });
    }
    Ok(bytes)
}

/// Open `path` for streaming if it is a regular file (for sources read piece by piece, such as
/// a zip, whose size is bounded per piece rather than whole).
pub fn open_regular(path: &Path) -> Result<std::fs::File, InputError> {
    let shown = || path.display().to_string();
    let io = |source| InputError::Io {
        path: shown(),
        source,
    };
    let metadata = std::fs::metadata(path).map_err(io)?;
    if !metadata.is_file() {
        return Err(InputError::NotRegular {
            path: shown(),
            kind: kind_of(metadata.file_type()),
        });
    }
    let file = std::fs::File::open(path).map_err(io)?;
    let metadata = file.metadata().map_err(io)?;
    if !metadata.is_file() {
        return Err(InputError::NotRegular {
            path: shown(),
            kind: kind_of(metadata.file_type()),
        });
    }
    Ok(file)
}

/// Open `path` for reading piece by piece (a trace, read line by line) if it is a regular file
/// of at most `limit` bytes: the same checks as [`read_capped`] before any byte is read, and the
/// reader fails (`InvalidData`, naming the limit) rather than read past `limit` bytes, so a file
/// that grows while it is read is refused too.
pub fn open_capped(path: &Path, limit: u64) -> Result<CappedFile, InputError> {
    let file = open_regular(path)?;
    let size = file
        .metadata()
        .map_err(|source| InputError::Io {
            path: path.display().to_string(),
            source,
        })?
        .len();
    if size > limit {
        return Err(InputError::TooLarge {
            path: path.display().to_string(),
            size,
            limit,
        });
    }
    Ok(CappedFile {
        inner: file.take(limit.saturating_add(1)),
        read: 0,
        limit,
    })
}

/// A regular file read through [`open_capped`]: at most its limit, then an error.
#[derive(Debug)]
pub struct CappedFile {
    inner: std::io::Take<std::fs::File>,
    read: u64,
    limit: u64,
}

impl Read for CappedFile {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read = self.read.saturating_add(n as u64);
        if self.read > self.limit {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "the file grew over the limit of {} bytes while it was read",
                    self.limit
                ),
            ));
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_at_the_limit_is_read_and_one_byte_over_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.json");
        std::fs::write(&path, b"12345").unwrap();
        assert_eq!(read_capped(&path, 5).unwrap(), b"12345");
        match read_capped(&path, 4) {
            Err(InputError::TooLarge {
                size: 5, limit: 4, ..
            }) => {}
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_capped_stream_reads_to_its_limit_and_refuses_a_larger_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.trace.jsonl");
        std::fs::write(&path, b"12345").unwrap();
        let mut bytes = Vec::new();
        open_capped(&path, 5)
            .unwrap()
            .read_to_end(&mut bytes)
            .unwrap();
        assert_eq!(bytes, b"12345");
        match open_capped(&path, 4) {
            Err(InputError::TooLarge {
                size: 5, limit: 4, ..
            }) => {}
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_capped_stream_refuses_a_file_that_grows_past_its_limit() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.trace.jsonl");
        std::fs::write(&path, b"1234").unwrap();
        let mut reader = open_capped(&path, 5).unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"5678")
            .unwrap();
        let mut bytes = Vec::new();
        let error = reader.read_to_end(&mut bytes).unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::InvalidData);
        assert!(error.to_string().contains("limit of 5 bytes"), "{error}");
    }

    #[cfg(unix)]
    #[test]
    fn a_device_is_refused_before_it_is_read() {
        for reader in [
            read_capped(Path::new("/dev/zero"), 100).map(|_| ()),
            open_capped(Path::new("/dev/zero"), 100).map(|_| ()),
        ] {
            match reader {
                Err(InputError::NotRegular {
                    kind: "a character device",
                    ..
                }) => {}
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn a_folder_is_not_a_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        match read_capped(dir.path(), 100) {
            Err(InputError::NotRegular {
                kind: "a folder", ..
            }) => {}
            other => panic!("{other:?}"),
        }
    }
}
