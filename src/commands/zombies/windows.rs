//! Windows: the process table from a Toolhelp snapshot (pid, parent, executable name), start
//! times from `GetProcessTimes`, command lines from `NtQueryInformationProcess` (or, where that
//! class is missing, from the process's parameter block); the files a process holds from the
//! Restart Manager (`RmStartSession`, `RmRegisterResources`, `RmGetList`, `RmEndSession`), the
//! documented way to ask which processes use a file; ending a process with `TerminateProcess`.
//! All through `windows-sys`.
//!
//! Wine's Restart Manager is a stub that reports no process for any file; lnkfix notices Wine
//! and says so in a warning instead of reporting that nothing holds the files.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::os::windows::ffi::OsStrExt;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use windows_sys::Wdk::System::Threading::{
    NtQueryInformationProcess, ProcessBasicInformation, ProcessCommandLineInformation,
};
use windows_sys::Win32::Foundation::{
    CloseHandle, GetLastError, ERROR_ACCESS_DENIED, ERROR_INVALID_PARAMETER, ERROR_MORE_DATA,
    FILETIME, HANDLE, INVALID_HANDLE_VALUE, UNICODE_STRING, WAIT_OBJECT_0,
};
use windows_sys::Win32::System::Diagnostics::Debug::ReadProcessMemory;
use windows_sys::Win32::System::Diagnostics::ToolHelp::{
    CreateToolhelp32Snapshot, Process32FirstW, Process32NextW, PROCESSENTRY32W, TH32CS_SNAPPROCESS,
};
use windows_sys::Win32::System::LibraryLoader::{GetModuleHandleW, GetProcAddress};
use windows_sys::Win32::System::RestartManager::{
    RmEndSession, RmGetList, RmRegisterResources, RmStartSession, CCH_RM_SESSION_KEY,
    RM_PROCESS_INFO,
};
use windows_sys::Win32::System::Threading::{
    GetProcessTimes, OpenProcess, TerminateProcess, WaitForSingleObject, PEB,
    PROCESS_BASIC_INFORMATION, PROCESS_QUERY_INFORMATION, PROCESS_QUERY_LIMITED_INFORMATION,
    PROCESS_SYNCHRONIZE, PROCESS_TERMINATE, PROCESS_VM_READ, RTL_USER_PROCESS_PARAMETERS,
};

use super::{
    attribute_holders, files_under, filetime_to_system_time, grow_list, HeldFile, Holdings,
    Process, Snapshot, StartTime, Target,
};

/// The names `ending` uses in reports: Windows has one way to end another process.
pub(super) const ENDING: (&str, &str) = ("TerminateProcess", "TerminateProcess again");

/// Files of the given directories registered with the Restart Manager at most.
const MAX_FILES: usize = 4096;
/// Directory levels walked below a given directory.
const MAX_DEPTH: usize = 8;
/// Longest command line read from another process, in UTF-16 units.
const MAX_COMMAND: usize = 32 * 1024;
/// A creation stamp is the system time of one timer tick (15.6 ms by default).
const CREATION_UNCERTAINTY: Duration = Duration::from_millis(16);

/// A process handle, closed when dropped.
struct Handle(HANDLE);

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: the handle came from OpenProcess/CreateToolhelp32Snapshot and is closed once.
        unsafe { CloseHandle(self.0) };
    }
}

fn open(pid: u32, access: u32) -> Result<Handle, u32> {
    // SAFETY: plain arguments; the result is checked.
    let handle = unsafe { OpenProcess(access, 0, pid) };
    if handle.is_null() {
        // SAFETY: reads the calling thread's last error.
        Err(unsafe { GetLastError() })
    } else {
        Ok(Handle(handle))
    }
}

fn filetime(value: &FILETIME) -> u64 {
    (u64::from(value.dwHighDateTime) << 32) | u64::from(value.dwLowDateTime)
}

/// The creation stamp of an open process.
fn creation(handle: &Handle) -> Option<u64> {
    let mut times = [FILETIME::default(); 4];
    let [created, exited, kernel, user] = &mut times;
    // SAFETY: four valid FILETIME out-pointers.
    let ok = unsafe { GetProcessTimes(handle.0, created, exited, kernel, user) };
    (ok != 0).then(|| filetime(&times[0]))
}

fn wide_to_string(units: &[u16]) -> String {
    let end = units.iter().position(|&u| u == 0).unwrap_or(units.len());
    String::from_utf16_lossy(&units[..end])
}

fn wide_path(path: &std::path::Path) -> Vec<u16> {
    OsStr::new(path).encode_wide().chain(Some(0)).collect()
}

/// The command line through `ProcessCommandLineInformation` (Windows 8.1 and later).
fn command_line_by_class(handle: &Handle) -> Option<String> {
    let mut length = 0u32;
    // SAFETY: a zero-length query only reports the size needed.
    unsafe {
        NtQueryInformationProcess(
            handle.0,
            ProcessCommandLineInformation,
            std::ptr::null_mut(),
            0,
            &mut length,
        )
    };
    let bytes =
        (length as usize).clamp(std::mem::size_of::<UNICODE_STRING>(), 2 * MAX_COMMAND + 64);
    // u64 units: the UNICODE_STRING at the start needs pointer alignment.
    let mut buffer = vec![0u64; bytes.div_ceil(8)];
    // SAFETY: the buffer is `buffer.len() * 8` bytes, as passed.
    let status = unsafe {
        NtQueryInformationProcess(
            handle.0,
            ProcessCommandLineInformation,
            buffer.as_mut_ptr().cast(),
            (buffer.len() * 8) as u32,
            &mut length,
        )
    };
    if status < 0 {
        return None;
    }
    // SAFETY: on success the buffer starts with a UNICODE_STRING whose text lies in the buffer.
    unsafe {
        let text = &*buffer.as_ptr().cast::<UNICODE_STRING>();
        let units = (text.Length / 2) as usize;
        if text.Buffer.is_null() || units == 0 {
            return None;
        }
        Some(String::from_utf16_lossy(std::slice::from_raw_parts(
            text.Buffer,
            units,
        )))
    }
}

/// Reads a `T` from another process's memory.
fn read_remote<T: Default>(handle: &Handle, address: *const T) -> Option<T> {
    let mut value = T::default();
    let mut read = 0usize;
    // SAFETY: writes at most size_of::<T>() bytes into `value`.
    let ok = unsafe {
        ReadProcessMemory(
            handle.0,
            address.cast(),
            (&mut value as *mut T).cast(),
            std::mem::size_of::<T>(),
            &mut read,
        )
    };
    (ok != 0 && read == std::mem::size_of::<T>()).then_some(value)
}

/// The command line from the process's parameter block (its PEB), for systems without
/// `ProcessCommandLineInformation` (Wine 8, Windows before 8.1).
fn command_line_from_peb(pid: u32) -> Option<String> {
    let handle = open(pid, PROCESS_QUERY_INFORMATION | PROCESS_VM_READ).ok()?;
    let mut basic = PROCESS_BASIC_INFORMATION::default();
    let mut length = 0u32;
    // SAFETY: the out-buffer is one PROCESS_BASIC_INFORMATION, as passed.
    let status = unsafe {
        NtQueryInformationProcess(
            handle.0,
            ProcessBasicInformation,
            (&mut basic as *mut PROCESS_BASIC_INFORMATION).cast(),
            std::mem::size_of::<PROCESS_BASIC_INFORMATION>() as u32,
            &mut length,
        )
    };
    if status < 0 || basic.PebBaseAddress.is_null() {
        return None;
    }
    let peb: PEB = read_remote(&handle, basic.PebBaseAddress)?;
    let parameters: RTL_USER_PROCESS_PARAMETERS = read_remote(&handle, peb.ProcessParameters)?;
    let units = ((parameters.CommandLine.Length / 2) as usize).min(MAX_COMMAND);
    if parameters.CommandLine.Buffer.is_null() || units == 0 {
        return None;
    }
    let mut text = vec![0u16; units];
    let mut read = 0usize;
    // SAFETY: writes at most `units` u16 into `text`.
    let ok = unsafe {
        ReadProcessMemory(
            handle.0,
            parameters.CommandLine.Buffer.cast(),
            text.as_mut_ptr().cast(),
            units * 2,
            &mut read,
        )
    };
    (ok != 0).then(|| String::from_utf16_lossy(&text[..read / 2]))
}

/// The Toolhelp snapshot: (pid, parent pid, executable file name) of every process.
fn toolhelp() -> Result<Vec<(u32, u32, String)>, String> {
    // SAFETY: plain arguments; the handle is checked and closed by `Handle`.
    let snapshot = unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0) };
    if snapshot == INVALID_HANDLE_VALUE {
        return Err(format!(
            "CreateToolhelp32Snapshot failed: {}",
            std::io::Error::last_os_error()
        ));
    }
    let snapshot = Handle(snapshot);
    let mut entry = PROCESSENTRY32W {
        dwSize: std::mem::size_of::<PROCESSENTRY32W>() as u32,
        ..Default::default()
    };
    let mut out = Vec::new();
    // SAFETY: `entry` is a PROCESSENTRY32W with dwSize set, as both calls require.
    let mut more = unsafe { Process32FirstW(snapshot.0, &mut entry) } != 0;
    while more {
        out.push((
            entry.th32ProcessID,
            entry.th32ParentProcessID,
            wide_to_string(&entry.szExeFile),
        ));
        // SAFETY: as above.
        more = unsafe { Process32NextW(snapshot.0, &mut entry) } != 0;
    }
    if out.is_empty() {
        return Err(format!(
            "Process32FirstW failed: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(out)
}

/// Reads the process table.
pub(super) fn snapshot() -> Result<Snapshot, String> {
    let now = SystemTime::now();
    let mut processes = Vec::new();
    for (pid, parent, name) in toolhelp()? {
        // Pid 0 is the idle process, not a program.
        if pid == 0 {
            continue;
        }
        let handle = open(pid, PROCESS_QUERY_LIMITED_INFORMATION).ok();
        let stamp = handle.as_ref().and_then(creation);
        let command = handle
            .as_ref()
            .and_then(command_line_by_class)
            .or_else(|| command_line_from_peb(pid));
        processes.push(Process {
            pid,
            parent_pid: Some(parent),
            names: vec![name.clone()],
            name,
            command,
            started: stamp
                .and_then(filetime_to_system_time)
                .map(|time| StartTime {
                    time,
                    uncertainty: CREATION_UNCERTAINTY,
                }),
            start_key: stamp.unwrap_or(0),
        });
    }
    Ok(Snapshot {
        processes,
        now,
        warnings: Vec::new(),
    })
}

/// Whether this is Wine (its ntdll exports `wine_get_version`).
pub(super) fn is_wine() -> bool {
    let name: Vec<u16> = "ntdll.dll".encode_utf16().chain(Some(0)).collect();
    // SAFETY: a NUL-terminated name; the module handle is not freed (GetModuleHandleW).
    unsafe {
        let module = GetModuleHandleW(name.as_ptr());
        !module.is_null() && GetProcAddress(module, c"wine_get_version".as_ptr().cast()).is_some()
    }
}

/// A Restart Manager session, ended when dropped.
struct Session(u32);

impl Drop for Session {
    fn drop(&mut self) {
        // SAFETY: the session was started by RmStartSession and is ended once.
        unsafe { RmEndSession(self.0) };
    }
}

/// Asks the Restart Manager which processes use any of `files`: (pid, creation stamp).
pub(super) fn restart_manager_holders(files: &[PathBuf]) -> Result<Vec<(u32, u64)>, String> {
    let mut handle = 0u32;
    let mut key = [0u16; CCH_RM_SESSION_KEY as usize + 1];
    // SAFETY: `key` has room for CCH_RM_SESSION_KEY + 1 units, as the API requires.
    let code = unsafe { RmStartSession(&mut handle, 0, key.as_mut_ptr()) };
    if code != 0 {
        return Err(format!(
            "RmStartSession failed: {}",
            std::io::Error::from_raw_os_error(code as i32)
        ));
    }
    let session = Session(handle);
    let names: Vec<Vec<u16>> = files.iter().map(|f| wide_path(f)).collect();
    let pointers: Vec<*const u16> = names.iter().map(|n| n.as_ptr()).collect();
    // SAFETY: `pointers` holds `files.len()` NUL-terminated names that outlive the call.
    let code = unsafe {
        RmRegisterResources(
            session.0,
            pointers.len() as u32,
            pointers.as_ptr(),
            0,
            std::ptr::null(),
            0,
            std::ptr::null(),
        )
    };
    if code != 0 {
        return Err(format!(
            "RmRegisterResources failed: {}",
            std::io::Error::from_raw_os_error(code as i32)
        ));
    }
    let list = grow_list(
        &mut |needed, count, buffer: *mut RM_PROCESS_INFO| {
            let mut reasons = 0u32;
            // SAFETY: `buffer` holds `*count` entries (or is null with `*count` 0).
            unsafe { RmGetList(session.0, needed, count, buffer, &mut reasons) }
        },
        ERROR_MORE_DATA,
    )
    .map_err(|code| {
        format!(
            "RmGetList failed: {}",
            std::io::Error::from_raw_os_error(code as i32)
        )
    })?;
    let mut holders: Vec<(u32, u64)> = list
        .iter()
        .map(|info| {
            (
                info.Process.dwProcessId,
                filetime(&info.Process.ProcessStartTime),
            )
        })
        .collect();
    holders.sort_unstable();
    holders.dedup();
    Ok(holders)
}

/// The files under `targets` that each process holds, from the Restart Manager.
pub(super) fn held_files(targets: &[Target], processes: &[Process]) -> Result<Holdings, String> {
    let mut warnings = Vec::new();
    let (files, cut) = files_under(targets, MAX_FILES, MAX_DEPTH);
    if cut {
        warnings.push(format!(
            "only the first {MAX_FILES} files under the given directories were asked about: name the log files themselves"
        ));
    }
    if is_wine() {
        warnings.push(
            "this is Wine, whose Restart Manager reports no process for any file: which process holds a file is unknown here, and processes are listed by name only".into(),
        );
    }
    let own = std::process::id();
    let by_holder = attribute_holders(&files, &mut |group| restart_manager_holders(group))?;
    let mut by_pid: BTreeMap<u32, Vec<HeldFile>> = BTreeMap::new();
    for ((pid, stamp), held) in by_holder {
        // The Restart Manager names a process by pid and creation stamp: a pid reused since the
        // table was read is not the listed process.
        let listed = processes
            .iter()
            .any(|p| p.pid == pid && (p.start_key == stamp || p.start_key == 0));
        if pid == own || !listed {
            continue;
        }
        let entry = by_pid.entry(pid).or_default();
        entry.extend(held.iter().map(|path| HeldFile {
            path: path.clone(),
            identity: crate::files::identity::of_path(path).ok(),
        }));
        entry.sort();
        entry.dedup();
    }
    Ok(Holdings { by_pid, warnings })
}

/// Opens the listed process, `None` when it is gone (or its pid now names another process).
fn open_listed(process: &Process, access: u32) -> Result<Option<Handle>, u32> {
    match open(process.pid, access | PROCESS_QUERY_LIMITED_INFORMATION) {
        Ok(handle) => {
            let same = process.start_key == 0 || creation(&handle) == Some(process.start_key);
            Ok(same.then_some(handle))
        }
        Err(ERROR_INVALID_PARAMETER) => Ok(None),
        Err(code) => Err(code),
    }
}

fn exited(handle: &Handle) -> bool {
    // SAFETY: a process handle opened with SYNCHRONIZE; a zero timeout only polls.
    unsafe { WaitForSingleObject(handle.0, 0) == WAIT_OBJECT_0 }
}

fn access_denied() -> String {
    "access denied (a process of another user, or elevated: run lnkfix as administrator)".into()
}

/// Ends the process (TerminateProcess).
pub(super) fn request_end(process: &Process) -> Result<(), String> {
    let handle = match open_listed(process, PROCESS_TERMINATE | PROCESS_SYNCHRONIZE) {
        Ok(Some(handle)) => handle,
        Ok(None) => return Ok(()),
        Err(ERROR_ACCESS_DENIED) => return Err(access_denied()),
        Err(code) => return Err(std::io::Error::from_raw_os_error(code as i32).to_string()),
    };
    if exited(&handle) {
        return Ok(());
    }
    // SAFETY: a process handle opened with PROCESS_TERMINATE.
    if unsafe { TerminateProcess(handle.0, 1) } != 0 {
        return Ok(());
    }
    // SAFETY: reads the calling thread's last error.
    match unsafe { GetLastError() } {
        ERROR_ACCESS_DENIED if !exited(&handle) => Err(access_denied()),
        ERROR_ACCESS_DENIED => Ok(()),
        code => Err(std::io::Error::from_raw_os_error(code as i32).to_string()),
    }
}

/// Ends the process again: Windows has nothing stronger than TerminateProcess.
pub(super) fn force_end(process: &Process) -> Result<(), String> {
    request_end(process)
}

/// Whether the process has ended.
pub(super) fn has_ended(process: &Process) -> bool {
    match open_listed(process, PROCESS_SYNCHRONIZE) {
        Ok(Some(handle)) => exited(&handle),
        Ok(None) => true,
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_process_has_a_name_a_start_and_a_command_line() {
        let snapshot = snapshot().unwrap();
        let own = snapshot
            .processes
            .iter()
            .find(|p| p.pid == std::process::id())
            .expect("this test's own process");
        assert!(
            own.name.to_ascii_lowercase().ends_with(".exe"),
            "{}",
            own.name
        );
        let started = own.started.as_ref().expect("own start time");
        assert!(started.time <= snapshot.now + started.uncertainty);
        assert!(
            snapshot
                .now
                .duration_since(started.time)
                .unwrap_or_default()
                < Duration::from_secs(3600)
        );
        let command = own.command.as_deref().expect("own command line");
        assert!(command.to_ascii_lowercase().contains(".exe"), "{command}");
        // The parent is in the table (the test harness, or Wine's start-up process).
        assert!(own.parent_pid.is_some());
    }

    /// The holder lookup at the API boundary: a file this process holds open, asked of the
    /// Restart Manager. Windows names this process; Wine's stub names none, and lnkfix says so.
    #[test]
    fn restart_manager_on_a_file_this_process_holds() {
        let dir = tempfile::tempdir().unwrap();
        let path = dunce::canonicalize(dir.path()).unwrap().join("held.log");
        let file = std::fs::File::create(&path).unwrap();
        let holders = restart_manager_holders(std::slice::from_ref(&path)).unwrap();
        let own = std::process::id();
        if is_wine() {
            assert!(
                holders.is_empty(),
                "Wine's Restart Manager now reports holders ({holders:?}): lnkfix's Wine warning is out of date"
            );
        } else {
            assert!(holders.iter().any(|(pid, _)| *pid == own), "{holders:?}");
        }
        drop(file);
        // Nothing registered: nothing holds it.
        assert!(restart_manager_holders(&[]).unwrap().is_empty());
    }
}
