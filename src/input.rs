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
