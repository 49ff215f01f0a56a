//! The integration tests: one test binary (as ripgrep has), one module per topic, with the
//! shared helpers in `common` (fixtures, prepared artefacts, process starts) and `patch_common`
//! (tvm-ffi releases and the checks of a patch). Run one topic with
//! `cargo test --test it TOPIC::` (e.g. `cargo test --test it triage_rows::`).

mod common;
#[path = "../../fuzz/src/lib.rs"]
mod fuzz_targets;
mod patch_build_files;
mod patch_common;

mod adversarial;
mod atomic_writes;
mod big_log;
mod build_files;
mod build_systems;
mod citations;
mod cli;
mod cli_conventions;
mod closed_loop;
mod cuda_hip_logs;
mod ecosystems;
mod environment;
mod examples;
mod failure_examples;
mod fuzz_regressions;
mod hostile_inputs;
mod hostile_logs;
mod hostile_verify;
mod house_rules;
mod index_cache;
mod index_corruption;
mod index_discover;
mod index_fixtures;
mod index_lookup;
mod index_wheels;
mod index_windows_crates;
mod link_failures;
mod linker_texts;
mod lld_logs;
mod localized;
mod man_pages;
mod metamorphic;
mod nothing_found;
mod patch_cases;
mod patch_from_diagnosis;
mod patch_releases;
mod precision;
mod readme;
mod real_libraries;
mod torch_hip;
mod triage_doctor;
mod triage_inputs;
mod triage_rows;
mod verify;
mod whence;
mod windows;
mod zombies;
