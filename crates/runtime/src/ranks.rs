//! Work spread over several processes — MPI ranks on one or many hosts — as the drivers that
//! split work among them see them ([`Ranks`]).
//!
//! A driver written against [`Ranks`] runs unchanged on one process ([`One`]), on MPI ranks
//! ([`Mpi`], behind the `mpi` cargo feature, over the system's MPI library through rsmpi) and
//! on threads standing in for ranks ([`on_threads`], what the tests of the drivers use without
//! MPI). Every method of [`Ranks`] is collective: every rank calls it, in the same order, with
//! the same lengths, or the run hangs. Drivers therefore carry failures in-band (a status word
//! beside the data) so that every rank learns of a failure at the same call and returns.

use crate::host;

/// The processes one run is spread over. See the module documentation.
pub trait Ranks {
    /// This process's rank, `0 .. size()`.
    fn rank(&self) -> usize;
    /// How many ranks the run has.
    fn size(&self) -> usize;
    /// Ranks on this host, this one included.
    fn local_size(&self) -> usize;
    /// Every rank's `mine` concatenated in rank order, on every rank. `mine` has the same
    /// length on every rank.
    fn all_gather(&self, mine: &[u64]) -> Vec<u64>;
    /// `root`'s `bytes` on every rank (what the other ranks pass is not read).
    fn broadcast(&self, root: usize, bytes: &[u8]) -> Vec<u8>;

    /// CPU threads this rank should use: the cores the launcher bound it to (Open MPI's
    /// `--map-by slot:PE=4 --bind-to core`, Slurm's `--cpus-per-task=4`), or where it is not
    /// bound to fewer than the host's cores, the host's threads shared among the ranks on it.
    fn threads(&self) -> usize {
        match bound_cpus() {
            Some(cpus) => cpus,
            None => (host::threads() / self.local_size().max(1)).max(1),
        }
    }

    /// `n` items split into `size()` consecutive shares: this rank's, as `start .. end`.
    fn share(&self, n: u64) -> std::ops::Range<u64> {
        share(n, self.rank(), self.size())
    }
}

/// A failure every rank of a run learnt of at the same collective call (so every rank returns
/// it, and no rank waits for another): what failed on rank `rank` of `size`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankFailure {
    /// The rank the failure happened on.
    pub rank: usize,
    /// Ranks in the run.
    pub size: usize,
    /// The failing rank's error, as text.
    pub message: String,
}

impl std::fmt::Display for RankFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "rank {} of {}: {}", self.rank, self.size, self.message)
    }
}

impl std::error::Error for RankFailure {}

/// `local` on every rank when it is `Ok` on every rank; otherwise, on every rank, the error of
/// the first rank where it is not (as a [`RankFailure`] carrying that rank's message,
/// `message` turning its error into text). Collective. On one rank, `local` itself.
pub fn agree<T, E>(
    ranks: &dyn Ranks,
    local: Result<T, E>,
    message: impl FnOnce(&E) -> String,
) -> Result<T, Result<E, RankFailure>> {
    if ranks.size() == 1 {
        return local.map_err(Ok);
    }
    let failed = ranks.all_gather(&[u64::from(local.is_err())]);
    let Some(rank) = failed.iter().position(|&f| f != 0) else {
        return local.map_err(Ok);
    };
    let mine = match &local {
        Err(e) if ranks.rank() == rank => message(e),
        _ => String::new(),
    };
    let text = ranks.broadcast(rank, mine.as_bytes());
    Err(Err(RankFailure {
        rank,
        size: ranks.size(),
        message: String::from_utf8_lossy(&text).into_owned(),
    }))
}

/// An error and its sources, `a: b: c`, as one line.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text += &format!(": {s}");
        source = s.source();
    }
    text
}

/// Item range of share `rank` when `n` items are split into `size` consecutive shares that
/// differ by at most one item (the first `n mod size` shares hold one more).
pub fn share(n: u64, rank: usize, size: usize) -> std::ops::Range<u64> {
    let (rank, size) = (rank as u64, size.max(1) as u64);
    let (base, extra) = (n / size, n % size);
    let start = rank * base + rank.min(extra);
    start..start + base + u64::from(rank < extra)
}

/// The CPUs this process may run on, where that is fewer than the host's online CPUs (a
/// launcher bound it to them).
fn bound_cpus() -> Option<usize> {
    // SAFETY: sched_getaffinity fills the zeroed set it is given, of the size given;
    // sysconf has no memory effects.
    let (online, mine) = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        let got = libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set);
        let online = libc::sysconf(libc::_SC_NPROCESSORS_ONLN);
        (online, (got == 0).then(|| libc::CPU_COUNT(&set)))
    };
    let mine = usize::try_from(mine?).ok().filter(|&n| n > 0)?;
    usize::try_from(online)
        .is_ok_and(|online| mine < online)
        .then_some(mine)
}

/// A run of one process.
#[derive(Clone, Copy, Debug, Default)]
pub struct One;

impl Ranks for One {
    fn rank(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        1
    }
    fn local_size(&self) -> usize {
        1
    }
    fn all_gather(&self, mine: &[u64]) -> Vec<u64> {
        mine.to_vec()
    }
    fn broadcast(&self, _root: usize, bytes: &[u8]) -> Vec<u8> {
        bytes.to_vec()
    }
}

/// How many processes an MPI launcher (`mpirun`, `mpiexec`, Slurm's `srun`) started this one
/// among, from the variables launchers set: `Some(n)` when launched by one (n = 0 where the
/// launcher names no count), `None` otherwise.
pub fn launched_by_mpi() -> Option<usize> {
    let var = |name: &str| std::env::var(name).ok();
    let count = |name: &str| var(name).and_then(|v| v.trim().parse::<usize>().ok());
    // Open MPI; MPICH, Intel MPI and Slurm's PMI-2; PMIx (Open MPI 5, Slurm --mpi=pmix).
    count("OMPI_COMM_WORLD_SIZE")
        .or_else(|| count("PMI_SIZE"))
        .or_else(|| var("PMIX_RANK").map(|_| count("SLURM_STEP_NUM_TASKS").unwrap_or(0)))
}

/// Threads standing in for `size` ranks (all on one host): `run` is called on each with its
/// rank; the results in rank order. For testing drivers without MPI.
pub fn on_threads<T: Send>(size: usize, run: impl Fn(&dyn Ranks) -> T + Sync) -> Vec<T> {
    let shared = Shared {
        size,
        barrier: std::sync::Barrier::new(size),
        words: std::sync::Mutex::new(vec![Vec::new(); size]),
        bytes: std::sync::Mutex::new(Vec::new()),
    };
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..size)
            .map(|rank| {
                let (shared, run) = (&shared, &run);
                s.spawn(move || run(&ThreadRank { rank, shared }))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

struct Shared {
    size: usize,
    barrier: std::sync::Barrier,
    words: std::sync::Mutex<Vec<Vec<u64>>>,
    bytes: std::sync::Mutex<Vec<u8>>,
}

struct ThreadRank<'a> {
    rank: usize,
    shared: &'a Shared,
}

impl Ranks for ThreadRank<'_> {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.shared.size
    }
    fn local_size(&self) -> usize {
        self.shared.size
    }
    fn all_gather(&self, mine: &[u64]) -> Vec<u64> {
        let lock = || self.shared.words.lock().unwrap_or_else(|p| p.into_inner());
        lock()[self.rank] = mine.to_vec();
        self.shared.barrier.wait();
        let all = lock().concat();
        // Nobody writes the next call's words before everyone has read these.
        self.shared.barrier.wait();
        all
    }
    fn broadcast(&self, root: usize, bytes: &[u8]) -> Vec<u8> {
        let lock = || self.shared.bytes.lock().unwrap_or_else(|p| p.into_inner());
        if self.rank == root {
            *lock() = bytes.to_vec();
        }
        self.shared.barrier.wait();
        let all = lock().clone();
        self.shared.barrier.wait();
        all
    }
}

#[cfg(feature = "mpi")]
pub use mpi_ranks::{abort_world, Mpi};

#[cfg(feature = "mpi")]
mod mpi_ranks {
    use super::Ranks;
    use mpi::environment::Universe;
    use mpi::topology::SimpleCommunicator;
    use mpi::traits::*;
    use mpi::Threading;

    /// The ranks of `MPI_COMM_WORLD`. MPI is initialised for threads that never call it
    /// (`MPI_THREAD_FUNNELED`): only the thread that made the `Mpi` may call its methods.
    pub struct Mpi {
        world: SimpleCommunicator,
        local_size: usize,
        // Last: MPI_Finalize runs when it drops, after the communicators are freed.
        _universe: Universe,
    }

    impl Mpi {
        /// Initialises MPI; an error when it was initialised already.
        pub fn init() -> Result<Mpi, String> {
            let (universe, _) = mpi::initialize_with_threading(Threading::Funneled)
                .ok_or("MPI is initialised already")?;
            let world = universe.world();
            let local = world.split_shared(world.rank());
            Ok(Mpi {
                local_size: local.size().max(1) as usize,
                world,
                _universe: universe,
            })
        }

        /// Ends every rank of the run (`MPI_Abort`) with exit status `code`: for a rank that
        /// cannot go on where the others wait for it in a collective call.
        pub fn abort(&self, code: i32) -> ! {
            self.world.abort(code)
        }
    }

    /// [`Mpi::abort`] from where no `Mpi` is at hand (a panic hook); MPI must be initialised.
    pub fn abort_world(code: i32) -> ! {
        SimpleCommunicator::world().abort(code)
    }

    impl Ranks for Mpi {
        fn rank(&self) -> usize {
            self.world.rank() as usize
        }
        fn size(&self) -> usize {
            self.world.size() as usize
        }
        fn local_size(&self) -> usize {
            self.local_size
        }
        fn all_gather(&self, mine: &[u64]) -> Vec<u64> {
            let mut all = vec![0u64; mine.len() * self.size()];
            self.world.all_gather_into(mine, &mut all[..]);
            all
        }
        fn broadcast(&self, root: usize, bytes: &[u8]) -> Vec<u8> {
            let root = self.world.process_at_rank(root as i32);
            let mut len = [bytes.len() as u64];
            root.broadcast_into(&mut len[..]);
            let mut data = if self.rank() == root.rank() as usize {
                bytes.to_vec()
            } else {
                vec![0u8; len[0] as usize]
            };
            root.broadcast_into(&mut data[..]);
            data
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_are_consecutive_and_cover_everything() {
        for (n, size) in [(10, 3), (2, 5), (0, 2), (7, 1)] {
            let shares: Vec<_> = (0..size).map(|r| share(n, r, size)).collect();
            assert_eq!(shares[0].start, 0);
            assert_eq!(shares[size - 1].end, n);
            assert!(shares.windows(2).all(|w| w[0].end == w[1].start));
            assert!(shares
                .iter()
                .all(|s| s.end - s.start <= n / size as u64 + 1));
        }
        assert_eq!(share(10, 0, 3), 0..4);
    }

    #[test]
    fn threads_stand_in_for_ranks() {
        let out = on_threads(3, |ranks| {
            let all = ranks.all_gather(&[ranks.rank() as u64, 7]);
            let msg = ranks.broadcast(1, format!("from {}", ranks.rank()).as_bytes());
            let again = ranks.all_gather(&[10 + ranks.rank() as u64]);
            (all, String::from_utf8(msg).unwrap(), again, ranks.size())
        });
        for (all, msg, again, size) in out {
            assert_eq!(all, [0, 7, 1, 7, 2, 7]);
            assert_eq!(msg, "from 1");
            assert_eq!(again, [10, 11, 12]);
            assert_eq!(size, 3);
        }
        assert_eq!(One.all_gather(&[4]), [4]);
    }
}
