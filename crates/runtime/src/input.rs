//! Reading the files a user names, with a size cap: a command reads a code, a sweep or a
//! report whole, and a wrong path (`/dev/zero`, a disk image, a video) must end in an error
//! naming the file, not in a read that grows until memory runs out. Text files are checked
//! as UTF-8 with a message that says what was expected instead of "stream did not contain
//! valid UTF-8".

use std::io::{self, Read};
use std::path::Path;

/// Reads `path` whole, refusing it once more than `cap` bytes have been read (so `/dev/zero`
/// or an endless FIFO stop at the cap). `what` names what the file should hold, for the
/// message ("an alist file"). Errors carry no path: callers name the file.
pub fn read_capped(path: &Path, cap: usize, what: &str) -> io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    if file.metadata()?.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("is a directory, not {what}"),
        ));
    }
    let mut bytes = Vec::new();
    file.take(cap as u64 + 1).read_to_end(&mut bytes)?;
    if bytes.len() > cap {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "holds more than {}, more than {what} can be; is it the right file?",
                shown_size(cap)
            ),
        ));
    }
    Ok(bytes)
}

/// [`read_capped`], then the bytes as UTF-8 text; binary data is refused with the offset of
/// the first byte that is not text and what the file should hold.
pub fn read_text(path: &Path, cap: usize, what: &str) -> io::Result<String> {
    let bytes = read_capped(path, cap, what)?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("is not text (byte {at} is not UTF-8): expected {what}"),
        )
    })
}

/// `bytes` as a short size: "64 MiB", "1000 bytes".
fn shown_size(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endless_and_binary_files_are_refused_by_what_they_should_be() {
        let e = read_text(Path::new("/dev/zero"), 1 << 20, "an alist file").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        let e = e.to_string();
        assert!(
            e.contains("more than 1 MiB") && e.contains("an alist file"),
            "{e}"
        );
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("code.alist");
        std::fs::write(&bin, b"4 2\n\x89PNG\x00\xff").unwrap();
        let e = read_text(&bin, 1000, "an alist file")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("not text (byte 4") && e.contains("expected an alist"),
            "{e}"
        );
        std::fs::write(&bin, "4 2\n").unwrap();
        assert_eq!(read_text(&bin, 4, "x").unwrap(), "4 2\n");
        assert!(read_text(&bin, 3, "x").is_err());
        let e = read_capped(dir.path(), 10, "a sweep file").unwrap_err();
        assert!(e.to_string().contains("is a directory"), "{e}");
    }
}
