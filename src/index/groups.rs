//! Every record of every file bucketed by the top bits of its name hash, each bucket in search
//! order, and the owned [`LibrarySymbol`]s of a bucket made on its first lookup.
//!
//! The build is a counting sort on hashes alone (two sequential passes, no name bytes touched
//! again, no hash table); names are compared on lookup, when a bucket is materialized and split
//! by exact name. A hash collision, even a crafted one, therefore never mixes up providers; it
//! only makes a bucket longer.

use std::sync::OnceLock;

use rayon::prelude::*;

use super::store::FileIndex;
use super::{LibrarySymbol, Machine};

/// Materialized buckets are allocated in chunks of this many, on first use.
const CHUNK: usize = 64;

/// The providers of the names of one bucket, as owned symbols.
#[derive(Debug, Default)]
pub(crate) struct Group {
    pub(crate) symbols: Vec<LibrarySymbol>,
    /// Per distinct name, in order of first appearance: start, end of the providers that link
    /// into the index's machine (= start of the others), end.
    pub(crate) names: Vec<(u32, u32, u32)>,
}

impl Group {
    /// The group of `symbols` (one bucket's, in search order): split by exact name in order of
    /// first appearance, each name's providers for `arch` first, search order kept within each.
    pub(crate) fn of(symbols: Vec<LibrarySymbol>, arch: Machine) -> Group {
        let mut names: Vec<String> = Vec::new();
        let mut found: Vec<(usize, bool, LibrarySymbol)> = Vec::with_capacity(symbols.len());
        for symbol in symbols {
            let distinct = match names.iter().position(|n| *n == symbol.name) {
                Some(distinct) => distinct,
                None => {
                    names.push(symbol.name.clone());
                    names.len() - 1
                }
            };
            let other = !symbol.machine.links_into(arch);
            found.push((distinct, other, symbol));
        }
        // Stable: search order is kept within each (name, machine) part.
        found.sort_by_key(|&(distinct, other, _)| (distinct, other));
        let mut result = Group {
            symbols: Vec::with_capacity(found.len()),
            names: Vec::with_capacity(names.len()),
        };
        for (distinct, other, symbol) in found {
            if result.names.len() <= distinct {
                let at = result.symbols.len() as u32;
                result.names.push((at, at, at));
            }
            if let Some(range) = result.names.last_mut() {
                range.2 += 1;
                if !other {
                    range.1 += 1;
                }
            }
            result.symbols.push(symbol);
        }
        result
    }

    /// The (linking, other machines) providers of exactly `name`.
    pub(crate) fn providers(&self, name: &str) -> (&[LibrarySymbol], &[LibrarySymbol]) {
        for &(start, middle, end) in &self.names {
            let (start, middle, end) = (start as usize, middle as usize, end as usize);
            if self.symbols.get(start).is_some_and(|s| s.name == name) {
                return (&self.symbols[start..middle], &self.symbols[middle..end]);
            }
        }
        (&[], &[])
    }
}

/// One distinct name, where it first appears and whether it has a provider for the index's machine.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NameAt {
    pub(crate) bucket: u32,
    /// Its number among the distinct names of the bucket.
    pub(crate) name: u32,
    pub(crate) file: u32,
    pub(crate) record: u32,
    pub(crate) links: bool,
}

/// The bucketing of every record by name hash.
#[derive(Debug, Default)]
pub(crate) struct Groups {
    /// Number of hash bits that choose the bucket.
    bits: u32,
    /// Per bucket, the start of its entries (one more entry: the end).
    starts: Vec<u32>,
    /// (file number, record number), bucket by bucket, in search order within a bucket.
    entries: Vec<(u32, u32)>,
    /// Materialized buckets, chunk by chunk.
    materialized: Vec<OnceLock<Box<[OnceLock<Group>]>>>,
    /// Distinct names in order of first appearance, computed when first asked for.
    order: OnceLock<Vec<NameAt>>,
}

impl Groups {
    /// Buckets the records of `files` (in search order).
    pub(crate) fn build(files: &[FileIndex]) -> Groups {
        let total: usize = files.iter().map(|f| f.parts.hashes.len()).sum();
        // About four records per bucket.
        let bits = (usize::BITS - (total / 4).max(1).leading_zeros()).clamp(4, 26);
        let buckets = 1usize << bits;
        let bucket = |hash: u64| (hash >> (64 - bits)) as usize;
        let mut starts = vec![0u32; buckets + 1];
        for file in files {
            for &hash in &file.parts.hashes {
                starts[bucket(hash) + 1] += 1;
            }
        }
        for number in 1..starts.len() {
            starts[number] += starts[number - 1];
        }
        let mut next = starts.clone();
        let mut entries = vec![(0u32, 0u32); total];
        for (file_number, file) in files.iter().enumerate() {
            for (record, &hash) in file.parts.hashes.iter().enumerate() {
                let slot = &mut next[bucket(hash)];
                entries[*slot as usize] = (file_number as u32, record as u32);
                *slot += 1;
            }
        }
        Groups {
            bits,
            starts,
            entries,
            materialized: std::iter::repeat_with(OnceLock::new)
                .take(buckets.div_ceil(CHUNK))
                .collect(),
            order: OnceLock::new(),
        }
    }

    /// The bucket of names with hash `hash`.
    pub(crate) fn bucket(&self, hash: u64) -> u32 {
        if self.bits == 0 {
            return 0;
        }
        (hash >> (64 - self.bits)) as u32
    }

    fn entries(&self, bucket: u32) -> &[(u32, u32)] {
        let bucket = bucket as usize;
        match (self.starts.get(bucket), self.starts.get(bucket + 1)) {
            (Some(&start), Some(&end)) => &self.entries[start as usize..end as usize],
            _ => &[],
        }
    }

    /// Bucket `bucket` as owned symbols (made on first call).
    pub(crate) fn group(&self, files: &[FileIndex], bucket: u32, arch: Machine) -> &Group {
        static EMPTY: Group = Group {
            symbols: Vec::new(),
            names: Vec::new(),
        };
        let number = bucket as usize;
        let Some(chunk) = self.materialized.get(number / CHUNK) else {
            return &EMPTY;
        };
        let chunk =
            chunk.get_or_init(|| std::iter::repeat_with(OnceLock::new).take(CHUNK).collect());
        chunk[number % CHUNK].get_or_init(|| self.materialize(files, bucket, arch))
    }

    fn materialize(&self, files: &[FileIndex], bucket: u32, arch: Machine) -> Group {
        let symbols = self
            .entries(bucket)
            .iter()
            .filter_map(|&(file, record)| {
                files
                    .get(file as usize)
                    .map(|file| file.materialize(record as usize))
            })
            .collect();
        Group::of(symbols, arch)
    }

    /// Every distinct name in order of first appearance (computed on first call: names are
    /// compared only here and on lookup).
    pub(crate) fn order(&self, files: &[FileIndex], arch: Machine) -> &[NameAt] {
        self.order.get_or_init(|| {
            let buckets = self.starts.len().saturating_sub(1) as u32;
            let mut order: Vec<NameAt> = (0..buckets)
                .into_par_iter()
                .with_min_len(1024)
                .flat_map_iter(|bucket| {
                    let mut names: Vec<(u64, NameAt)> = Vec::new();
                    for &(file_number, record) in self.entries(bucket) {
                        let Some(file) = files.get(file_number as usize) else {
                            continue;
                        };
                        let hash = file.parts.hashes[record as usize];
                        let links = file.machine(record as usize).links_into(arch);
                        let known = names.iter_mut().find(|(h, n)| {
                            *h == hash
                                && files[n.file as usize].name(n.record as usize)
                                    == file.name(record as usize)
                        });
                        match known {
                            Some((_, known)) => known.links |= links,
                            None => {
                                let name = names.len() as u32;
                                names.push((
                                    hash,
                                    NameAt {
                                        bucket,
                                        name,
                                        file: file_number,
                                        record,
                                        links,
                                    },
                                ));
                            }
                        }
                    }
                    names.into_iter().map(|(_, name)| name)
                })
                .collect();
            order.par_sort_unstable_by_key(|n| (n.file, n.record));
            order
        })
    }
}
