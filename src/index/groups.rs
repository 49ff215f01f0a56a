//! Every record of every file grouped by the hash of its name, in search order, and the owned
//! [`LibrarySymbol`]s of a group made on its first lookup.
//!
//! The build compares hashes only (no name bytes are touched again): records are split into
//! shards by the top bits of their hash and each shard, built on its own thread, chains its
//! records per hash in search order. Names are compared on lookup, when a group is materialized:
//! two names with equal hashes share a group and are told apart there, so a collision (even a
//! crafted one) never mixes up providers.

use std::sync::OnceLock;

use rayon::prelude::*;

use super::store::FileIndex;
use super::{LibrarySymbol, Machine};

const SHARD_BITS: u32 = 6;
const SHARDS: usize = 1 << SHARD_BITS;
/// Materialized groups are allocated in chunks of this many, on first use.
const CHUNK: usize = 64;

fn shard_of(hash: u64) -> usize {
    (hash >> (64 - SHARD_BITS)) as usize
}

/// A file's record numbers ordered by shard (a counting sort done on the file's own thread).
#[derive(Debug, Default)]
pub(crate) struct ShardOrder {
    starts: Vec<u32>,
    order: Vec<u32>,
}

impl ShardOrder {
    /// Orders the records with these hashes by shard, each shard in record order.
    pub(crate) fn new(hashes: &[u64]) -> ShardOrder {
        let mut starts = vec![0u32; SHARDS + 1];
        for &hash in hashes {
            starts[shard_of(hash) + 1] += 1;
        }
        for shard in 1..=SHARDS {
            starts[shard] += starts[shard - 1];
        }
        let mut next = starts.clone();
        let mut order = vec![0u32; hashes.len()];
        for (number, &hash) in hashes.iter().enumerate() {
            let slot = &mut next[shard_of(hash)];
            order[*slot as usize] = number as u32;
            *slot += 1;
        }
        ShardOrder { starts, order }
    }

    fn shard(&self, shard: usize) -> &[u32] {
        match (self.starts.get(shard), self.starts.get(shard + 1)) {
            (Some(&start), Some(&end)) => &self.order[start as usize..end as usize],
            _ => &[],
        }
    }
}

/// One record in a chain: file number, record number, next entry of the group + 1 (0 = last).
#[derive(Debug, Clone, Copy)]
struct Entry {
    file: u32,
    record: u32,
    next: u32,
}

#[derive(Debug, Default)]
struct Shard {
    /// Open addressing on the low bits of the hash: group number + 1, 0 = empty.
    slots: Vec<u32>,
    /// Per group: its hash and first entry.
    hashes: Vec<u64>,
    heads: Vec<u32>,
    entries: Vec<Entry>,
}

impl Shard {
    fn build(files: &[FileIndex], orders: &[ShardOrder], shard: usize) -> Shard {
        let total: usize = orders.iter().map(|o| o.shard(shard).len()).sum();
        let size = (total * 2).next_power_of_two().max(16);
        let mask = size - 1;
        let mut built = Shard {
            slots: vec![0; size],
            hashes: Vec::new(),
            heads: Vec::new(),
            entries: Vec::with_capacity(total),
        };
        let mut tails: Vec<u32> = Vec::new();
        for (file_number, (file, order)) in files.iter().zip(orders).enumerate() {
            for &record in order.shard(shard) {
                let hash = file.parts.hashes[record as usize];
                let entry = built.entries.len() as u32;
                built.entries.push(Entry {
                    file: file_number as u32,
                    record,
                    next: 0,
                });
                let mut slot = hash as usize & mask;
                loop {
                    let group = built.slots[slot];
                    if group == 0 {
                        built.hashes.push(hash);
                        built.heads.push(entry);
                        tails.push(entry);
                        built.slots[slot] = built.hashes.len() as u32;
                        break;
                    }
                    let group = group as usize - 1;
                    if built.hashes[group] == hash {
                        built.entries[tails[group] as usize].next = entry + 1;
                        tails[group] = entry;
                        break;
                    }
                    slot = (slot + 1) & mask;
                }
            }
        }
        built
    }

    fn find(&self, hash: u64) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut slot = hash as usize & mask;
        loop {
            let group = *self.slots.get(slot)?;
            if group == 0 {
                return None;
            }
            if self.hashes.get(group as usize - 1) == Some(&hash) {
                return Some(group as usize - 1);
            }
            slot = (slot + 1) & mask;
        }
    }

    /// The entries of group `group`, in search order.
    fn entries(&self, group: usize) -> impl Iterator<Item = Entry> + '_ {
        let mut next = self.heads.get(group).map_or(0, |&head| head + 1);
        std::iter::from_fn(move || {
            let entry = *self.entries.get(next.checked_sub(1)? as usize)?;
            next = entry.next;
            Some(entry)
        })
    }
}

/// The providers of the names that share one hash, as owned symbols.
#[derive(Debug, Default)]
pub(crate) struct Group {
    pub(crate) symbols: Vec<LibrarySymbol>,
    /// Per distinct name, in order of first appearance: start, end of the providers that link
    /// into the index's machine (= start of the others), end.
    pub(crate) names: Vec<(u32, u32, u32)>,
}

impl Group {
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
    pub(crate) group: u32,
    /// Its number among the distinct names of the group.
    pub(crate) name: u32,
    pub(crate) file: u32,
    pub(crate) record: u32,
    pub(crate) links: bool,
}

/// The grouping of every record by name hash.
#[derive(Debug, Default)]
pub(crate) struct Groups {
    shards: Vec<Shard>,
    /// Per shard, the global number of its first group.
    bases: Vec<u32>,
    /// Materialized groups, chunk by chunk.
    materialized: Vec<OnceLock<Box<[OnceLock<Group>]>>>,
    /// Distinct names in order of first appearance, computed when first asked for.
    order: OnceLock<Vec<NameAt>>,
}

impl Groups {
    /// Groups the records of `files` (in search order), shards in parallel.
    pub(crate) fn build(files: &[FileIndex], orders: &[ShardOrder]) -> Groups {
        let shards: Vec<Shard> = (0..SHARDS)
            .into_par_iter()
            .map(|shard| Shard::build(files, orders, shard))
            .collect();
        let mut bases = Vec::with_capacity(SHARDS);
        let mut count = 0usize;
        for shard in &shards {
            bases.push(count as u32);
            count += shard.hashes.len();
        }
        Groups {
            shards,
            bases,
            materialized: std::iter::repeat_with(OnceLock::new)
                .take(count.div_ceil(CHUNK))
                .collect(),
            order: OnceLock::new(),
        }
    }

    /// The group whose hash is `hash`, if any.
    pub(crate) fn find(&self, hash: u64) -> Option<u32> {
        let shard = shard_of(hash);
        let group = self.shards.get(shard)?.find(hash)?;
        Some(self.bases[shard] + group as u32)
    }

    fn locate(&self, group: u32) -> Option<(&Shard, usize)> {
        let shard = self
            .bases
            .partition_point(|&base| base <= group)
            .checked_sub(1)?;
        Some((&self.shards[shard], (group - self.bases[shard]) as usize))
    }

    /// Group `group` as owned symbols (made on first call).
    pub(crate) fn group(&self, files: &[FileIndex], group: u32, arch: Machine) -> &Group {
        static EMPTY: Group = Group {
            symbols: Vec::new(),
            names: Vec::new(),
        };
        let number = group as usize;
        let Some(chunk) = self.materialized.get(number / CHUNK) else {
            return &EMPTY;
        };
        let chunk =
            chunk.get_or_init(|| std::iter::repeat_with(OnceLock::new).take(CHUNK).collect());
        chunk[number % CHUNK].get_or_init(|| self.materialize(files, group, arch))
    }

    fn materialize(&self, files: &[FileIndex], group: u32, arch: Machine) -> Group {
        let Some((shard, local)) = self.locate(group) else {
            return Group::default();
        };
        let mut names: Vec<&str> = Vec::new();
        let mut found: Vec<(usize, bool, LibrarySymbol)> = Vec::new();
        for entry in shard.entries(local) {
            let Some(file) = files.get(entry.file as usize) else {
                continue;
            };
            let name = file.name(entry.record as usize);
            let distinct = match names.iter().position(|n| *n == name) {
                Some(distinct) => distinct,
                None => {
                    names.push(name);
                    names.len() - 1
                }
            };
            let symbol = file.materialize(entry.record as usize);
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

    /// Every distinct name in order of first appearance (computed on first call: names are
    /// compared only here and on lookup).
    pub(crate) fn order(&self, files: &[FileIndex], arch: Machine) -> &[NameAt] {
        self.order.get_or_init(|| {
            let mut order: Vec<NameAt> = self
                .shards
                .par_iter()
                .zip(&self.bases)
                .flat_map_iter(|(shard, &base)| {
                    let mut names = Vec::new();
                    for local in 0..shard.hashes.len() {
                        let first = names.len();
                        for entry in shard.entries(local) {
                            let Some(file) = files.get(entry.file as usize) else {
                                continue;
                            };
                            let name = file.name(entry.record as usize);
                            let links = file.machine(entry.record as usize).links_into(arch);
                            let known = names[first..].iter_mut().find(|n: &&mut NameAt| {
                                files[n.file as usize].name(n.record as usize) == name
                            });
                            match known {
                                Some(known) => known.links |= links,
                                None => names.push(NameAt {
                                    group: base + local as u32,
                                    name: (names.len() - first) as u32,
                                    file: entry.file,
                                    record: entry.record,
                                    links,
                                }),
                            }
                        }
                    }
                    names
                })
                .collect();
            order.par_sort_unstable_by_key(|n| (n.file, n.record));
            order
        })
    }
}
