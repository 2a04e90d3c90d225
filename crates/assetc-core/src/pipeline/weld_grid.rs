//! The grid of kept vertices that [`super::weld::weld_within`] searches: for each new
//! vertex, the 27 cells around its position. Most of those cells are empty, and a hash
//! map probe for each was most of the Qt target's time on a 1M-triangle field (27 cache
//! misses per vertex, SipHash on each key, a `Vec` per cell; perf). Here an empty cell
//! costs one bit test in a small bitmap, the key hash is a fixed multiply-mix, and a
//! cell's kept vertices are a list threaded through one array. The cells hold the same
//! vertices in the same order as before, so the weld's result is unchanged. A second
//! bitmap over blocks of 2x2x2 cells answers "is anything near at all" in eight bit
//! tests: no, for every vertex that has no copy.

use rayon::prelude::*;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

/// A grid cell: a position divided by the cell size, floored.
pub type Cell = [i64; 3];

const END: u32 = u32::MAX;

/// Bits of the block bitmap per vertex: a query tests eight of them, so their density
/// must be low for a clear answer to be likely (at 4 bits per vertex, as the cell
/// bitmap has, a sparse 500k-vertex field found a bit set around 90% of its vertices).
/// On the Qt target's 1M flat field, 32 bits welded faster than 4 or none (16 fell
/// between; docs/performance.md), for 2 MiB at that size.
const BLOCK_BITS_PER_VERTEX: usize = 32;

/// Kept vertices (numbered from 0 in the order they were kept) by cell.
pub struct KeptGrid {
    /// First and last kept vertex of each non-empty cell.
    cells: HashMap<CellKey, (u32, u32), BuildHasherDefault<CellHasher>>,
    /// For each kept vertex, the next one kept in its cell ([`END`] for none).
    next: Vec<u32>,
    /// One bit per slot of the key hash's top bits: clear means no cell with that hash
    /// holds a vertex, so the map is not probed.
    occupied: Vec<u64>,
    /// The same for blocks of 2x2x2 cells: clear for all eight blocks around a position
    /// means none of its 27 cells holds a vertex, tested in eight bits instead of 27.
    occupied_blocks: Vec<u64>,
    slot_bits: u32,
    block_slot_bits: u32,
}

impl KeptGrid {
    /// A grid for up to about `vertices` kept vertices.
    pub fn with_capacity(vertices: usize) -> Self {
        // About 4 bits per cell keeps false hits (probes of empty cells) near 1 in 4 or
        // fewer; 4 MiB at most, so it stays in cache.
        let slots = (vertices.saturating_mul(4))
            .next_power_of_two()
            .clamp(1 << 10, 1 << 25);
        let block_slots = (vertices.saturating_mul(BLOCK_BITS_PER_VERTEX))
            .next_power_of_two()
            .clamp(1 << 10, 1 << 25);
        Self {
            cells: HashMap::with_capacity_and_hasher(vertices, Default::default()),
            next: Vec::with_capacity(vertices),
            occupied: vec![0; slots / 64],
            occupied_blocks: vec![0; block_slots / 64],
            slot_bits: slots.trailing_zeros(),
            block_slot_bits: block_slots.trailing_zeros(),
        }
    }

    fn slot(&self, hash: u64) -> (usize, u64) {
        slot_of(hash, self.slot_bits)
    }

    /// Whether a kept vertex may lie in one of the 27 cells around `cell` (`false`: none
    /// does), from the eight blocks that cover them.
    pub fn may_have_near(&self, cell: Cell) -> bool {
        blocks_around(cell).any(|block| {
            let (word, bit) = slot_of(mix(block), self.block_slot_bits);
            self.occupied_blocks[word] & bit != 0
        })
    }

    /// The kept vertices of `cell`, in the order they were kept.
    pub fn cell(&self, cell: Cell) -> impl Iterator<Item = u32> + '_ {
        let (word, bit) = self.slot(mix(cell));
        let first = if self.occupied[word] & bit == 0 {
            END
        } else {
            self.cells
                .get(&CellKey(cell))
                .map_or(END, |&(first, _)| first)
        };
        std::iter::successors((first != END).then_some(first), |&k| {
            let n = self.next[k as usize];
            (n != END).then_some(n)
        })
    }

    /// Numbers the next kept vertex without recording it in any cell: one that
    /// [`alone`] found with no other vertex near it, which no search can meet.
    pub fn push_alone(&mut self) -> u32 {
        let k = self.next.len() as u32;
        self.next.push(END);
        k
    }

    /// Records the next kept vertex (numbered `self.len()`) in `cell`; returns its number.
    pub fn push(&mut self, cell: Cell) -> u32 {
        let k = self.next.len() as u32;
        self.next.push(END);
        let (word, bit) = self.slot(mix(cell));
        self.occupied[word] |= bit;
        let (word, bit) = slot_of(mix(block_of(cell)), self.block_slot_bits);
        self.occupied_blocks[word] |= bit;
        match self.cells.get_mut(&CellKey(cell)) {
            Some((_, last)) => {
                self.next[*last as usize] = k;
                *last = k;
            }
            None => {
                self.cells.insert(CellKey(cell), (k, k));
            }
        }
        k
    }
}

/// Slots per vertex of [`alone`]'s bitmaps: a vertex is found alone only when the seven
/// blocks around its own hash to empty slots, so their density must be low (at 64, about
/// one vertex in ten with no neighbour is still sent to the grid).
const ALONE_SLOTS_PER_VERTEX: usize = 64;

/// The block of 2x2x2 cells `cell` lies in.
fn block_of(cell: Cell) -> Cell {
    cell.map(|c| c.div_euclid(2))
}

/// The eight blocks that cover the 27 cells around `cell` (its own block among them):
/// cells c-1, c, c+1 of an axis lie in exactly two blocks, (c-1)/2 and the next
/// (floored).
fn blocks_around(cell: Cell) -> impl Iterator<Item = Cell> {
    let first = cell.map(|c| c.saturating_sub(1).div_euclid(2));
    (0..8).map(move |i| {
        [
            first[0].saturating_add(i & 1),
            first[1].saturating_add((i >> 1) & 1),
            first[2].saturating_add(i >> 2),
        ]
    })
}

/// For each vertex `0..count`, by its cell (`cell_of`: worked out when asked for, twice
/// per vertex, instead of kept, 24 bytes a vertex less): `true` when no other vertex lies
/// in the 27 cells around it. Such a vertex is kept whatever comes before it, and no
/// other vertex's search can meet it (cells within one of each other are so both ways;
/// its own cell holds it alone, so it takes no other vertex's place among a cell's first
/// candidates): the weld keeps it without the grid, with the same result. Worked out on every core from two bitmaps
/// over the blocks of 2x2x2 cells (a block's slot seen once, seen twice), so it errs one
/// way only: a slot shared by two blocks, or a coordinate at the edge of the range, says
/// "not alone", and the vertex goes through the grid as before. On a 1M-triangle field
/// with no copies, nearly every vertex is alone and the serial weld only numbers them.
pub fn alone(count: usize, cell_of: impl Fn(usize) -> Cell + Sync) -> Vec<bool> {
    // 16 MiB a bitmap at most: past 2M vertices the slots per vertex go down.
    let slots = count
        .saturating_mul(ALONE_SLOTS_PER_VERTEX)
        .next_power_of_two()
        .clamp(1 << 10, 1 << 27);
    let bits = slots.trailing_zeros();
    let words = || {
        (0..slots / 64)
            .map(|_| AtomicU64::new(0))
            .collect::<Vec<_>>()
    };
    let (once, twice) = (words(), words());
    (0..count).into_par_iter().for_each(|v| {
        let (word, bit) = slot_of(mix(block_of(cell_of(v))), bits);
        if once[word].fetch_or(bit, Ordering::Relaxed) & bit != 0 {
            twice[word].fetch_or(bit, Ordering::Relaxed);
        }
    });
    let is_set =
        |map: &[AtomicU64], (word, bit): (usize, u64)| map[word].load(Ordering::Relaxed) & bit != 0;
    (0..count)
        .into_par_iter()
        .map(|v| {
            let cell = cell_of(v);
            // Far out, `c + 1` and the blocks' bounds would saturate: not worth the care.
            if cell.iter().any(|c| c.unsigned_abs() > (1 << 60)) {
                return false;
            }
            let own_block = block_of(cell);
            let own = slot_of(mix(own_block), bits);
            if is_set(&twice, own) {
                return false;
            }
            blocks_around(cell).all(|block| {
                if block == own_block {
                    return true;
                }
                let slot = slot_of(mix(block), bits);
                slot != own && !is_set(&once, slot)
            })
        })
        .collect()
}

/// The word and bit of `hash`'s top `bits` bits in a bitmap.
fn slot_of(hash: u64, bits: u32) -> (usize, u64) {
    let slot = (hash >> (64 - bits)) as usize;
    (slot / 64, 1u64 << (slot % 64))
}

/// A fixed 64-bit mix of a cell (murmur3's finaliser over a multiply-combine): well
/// spread in its top bits, which the bitmap and the map's control bytes use.
fn mix(c: Cell) -> u64 {
    let mut h = (c[0] as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h = (h ^ (c[1] as u64)).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    h = (h ^ (c[2] as u64)).wrapping_mul(0x1656_67B1_9E37_79F9);
    h ^= h >> 33;
    h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    h ^= h >> 33;
    h = h.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    h ^ (h >> 33)
}

#[derive(PartialEq, Eq)]
struct CellKey(Cell);

impl Hash for CellKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(mix(self.0));
    }
}

/// Passes [`mix`]'s value through (keys hash themselves).
#[derive(Default)]
struct CellHasher(u64);

impl Hasher for CellHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Not reached for `CellKey`; a plain fold keeps it a hasher.
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x100_0000_01B3);
        }
    }
    fn write_u64(&mut self, value: u64) {
        self.0 = value;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_list_their_vertices_in_kept_order_and_empty_cells_none() {
        let mut grid = KeptGrid::with_capacity(4);
        let cells = [[0, 0, 0], [1, 0, 0], [0, 0, 0], [-5, 7, 1 << 40], [0, 0, 0]];
        for (i, &c) in cells.iter().enumerate() {
            assert_eq!(grid.push(c), i as u32);
        }
        let list = |c: Cell| grid.cell(c).collect::<Vec<_>>();
        assert_eq!(list([0, 0, 0]), vec![0, 2, 4]);
        assert_eq!(list([1, 0, 0]), vec![1]);
        assert_eq!(list([-5, 7, 1 << 40]), vec![3]);
        assert!(list([0, 1, 0]).is_empty());
        assert!(list([2, 0, 0]).is_empty());
    }

    #[test]
    fn no_cell_beside_a_kept_vertex_is_reported_empty() {
        let mut grid = KeptGrid::with_capacity(64);
        let kept = [[0, 0, 0], [7, -3, 2], [-8, 5, -1], [1 << 40, -(1 << 40), 3]];
        for &c in &kept {
            grid.push(c);
        }
        for c in kept {
            for dx in -1..=1 {
                for dy in -1..=1 {
                    for dz in -1..=1 {
                        let probe = [c[0] + dx, c[1] + dy, c[2] + dz];
                        assert!(grid.may_have_near(probe), "{probe:?} beside {c:?}");
                    }
                }
            }
        }
        // None of the 27 cells around these holds a vertex (and their blocks' bits do not
        // collide with the kept ones' in this bitmap).
        for far in [[3, 3, 3], [100, 100, 100], [-3, 0, 0]] {
            assert!(!grid.may_have_near(far), "{far:?}");
        }
    }

    #[test]
    fn many_cells_each_find_exactly_their_own() {
        // Past the bitmap's size, so slots are shared and the map decides.
        let n = 5_000i64;
        let mut grid = KeptGrid::with_capacity(16);
        for i in 0..n {
            grid.push([i % 71, i / 71, -(i % 3)]);
        }
        for i in 0..n {
            let mine: Vec<u32> = grid.cell([i % 71, i / 71, -(i % 3)]).collect();
            assert!(mine.contains(&(i as u32)), "{i}");
            assert!(mine.iter().all(|&k| {
                let k = i64::from(k);
                [k % 71, k / 71, -(k % 3)] == [i % 71, i / 71, -(i % 3)]
            }));
        }
        assert_eq!(grid.cell([1000, 1000, 1000]).count(), 0);
    }
}
