//! Which file a path names, independent of the path: the device and inode on Unix, the volume
//! serial number and file index on Windows. Two paths name the same file exactly when their
//! identities are equal (symbolic links, hard links, `..`, case and short names included).
//! Used to detect directory cycles in walks and globs, to refuse `patch -o` onto its own inputs,
//! and (with the change time, which every rewrite updates) in the index cache key.

use std::fs::File;
use std::io;
use std::path::Path;

/// The identity of a file or directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileIdentity {
    /// The device (Unix) or volume serial number (Windows).
    pub volume: u64,
    /// The inode (Unix) or file index (Windows).
    pub index: u64,
}

/// What the cache compares besides size and modification time: the file's identity, and its
/// change time (the inode's `ctime` on Unix, `ChangeTime` on Windows), in nanoseconds since an
/// epoch of the platform's. A rewrite with the same size and modification time changes one of
/// them (a rename over the file its identity, a write in place its change time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    /// Which file.
    pub identity: FileIdentity,
    /// When its inode last changed.
    pub changed: i128,
}

/// The identity of what `path` names (after following symbolic links).
pub fn of_path(path: &Path) -> io::Result<FileIdentity> {
    stamp_of_path(path).map(|stamp| stamp.identity)
}

/// The identity and change time of what `path` names (after following symbolic links).
#[cfg(unix)]
pub fn stamp_of_path(path: &Path) -> io::Result<FileStamp> {
    Ok(stamp_of_metadata(&std::fs::metadata(path)?))
}

/// The identity and change time of an open file.
#[cfg(unix)]
pub fn stamp_of_file(file: &File) -> io::Result<FileStamp> {
    Ok(stamp_of_metadata(&file.metadata()?))
}

/// The stamp from metadata already read (`stat` or `lstat` of a file that is no link).
#[cfg(unix)]
pub fn stamp_of_metadata(metadata: &std::fs::Metadata) -> FileStamp {
    use std::os::unix::fs::MetadataExt;
    FileStamp {
        identity: FileIdentity {
            volume: metadata.dev(),
            index: metadata.ino(),
        },
        changed: i128::from(metadata.ctime()) * 1_000_000_000 + i128::from(metadata.ctime_nsec()),
    }
}

/// The identity and change time of what `path` names (after following symbolic links): the path
/// is opened for no access at all (directories too), which never blocks.
#[cfg(windows)]
pub fn stamp_of_path(path: &Path) -> io::Result<FileStamp> {
    use std::os::windows::fs::OpenOptionsExt;
    use windows_sys::Win32::Storage::FileSystem::FILE_FLAG_BACKUP_SEMANTICS;
    let file = std::fs::OpenOptions::new()
        .access_mode(0)
        .custom_flags(FILE_FLAG_BACKUP_SEMANTICS)
        .open(path)?;
    stamp_of_file(&file)
}

/// The identity and change time of an open file.
#[cfg(windows)]
pub fn stamp_of_file(file: &File) -> io::Result<FileStamp> {
    use std::os::windows::io::AsRawHandle;
    use windows_sys::Win32::Storage::FileSystem::{
        FileBasicInfo, GetFileInformationByHandle, GetFileInformationByHandleEx,
        BY_HANDLE_FILE_INFORMATION, FILE_BASIC_INFO,
    };
    let handle = file.as_raw_handle();
    // SAFETY: plain out-parameters of the documented sizes, for a handle we own and keep open.
    let (information, basic) = unsafe {
        let mut information: BY_HANDLE_FILE_INFORMATION = std::mem::zeroed();
        if GetFileInformationByHandle(handle, &mut information) == 0 {
            return Err(io::Error::last_os_error());
        }
        let mut basic: FILE_BASIC_INFO = std::mem::zeroed();
        if GetFileInformationByHandleEx(
            handle,
            FileBasicInfo,
            (&mut basic as *mut FILE_BASIC_INFO).cast(),
            std::mem::size_of::<FILE_BASIC_INFO>() as u32,
        ) == 0
        {
            return Err(io::Error::last_os_error());
        }
        (information, basic)
    };
    Ok(FileStamp {
        identity: FileIdentity {
            volume: u64::from(information.dwVolumeSerialNumber),
            index: (u64::from(information.nFileIndexHigh) << 32)
                | u64::from(information.nFileIndexLow),
        },
        // 100-nanosecond units.
        changed: i128::from(basic.ChangeTime) * 100,
    })
}

/// Whether two paths name the same existing file.
pub fn same_file(one: &Path, other: &Path) -> bool {
    match (of_path(one), of_path(other)) {
        (Ok(one), Ok(other)) => one == other,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_and_dot_dots_are_the_same_file_and_copies_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.py");
        std::fs::write(&file, "x").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        assert!(same_file(
            &file,
            &dir.path().join("sub").join("..").join("a.py")
        ));
        std::fs::hard_link(&file, dir.path().join("hard.py")).unwrap();
        assert!(same_file(&file, &dir.path().join("hard.py")));
        std::fs::write(dir.path().join("copy.py"), "x").unwrap();
        assert!(!same_file(&file, &dir.path().join("copy.py")));
        assert!(!same_file(&file, &dir.path().join("missing.py")));
        assert_eq!(
            of_path(dir.path()).unwrap(),
            of_path(&dir.path().join("sub/..")).unwrap()
        );
    }

    #[test]
    fn a_rewrite_in_place_changes_the_change_time() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.lib");
        std::fs::write(&file, "one").unwrap();
        let before = stamp_of_path(&file).unwrap();
        let modified = std::fs::metadata(&file).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&file, "two").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&file)
            .unwrap()
            .set_modified(modified)
            .unwrap();
        let after = stamp_of_path(&file).unwrap();
        assert_eq!(
            std::fs::metadata(&file).unwrap().modified().unwrap(),
            modified
        );
        assert_eq!(before.identity, after.identity);
        assert_ne!(before.changed, after.changed);
    }
}
