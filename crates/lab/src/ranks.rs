//! The processes a command runs among: this one alone, or the MPI ranks an MPI launcher
//! (`mpirun`, `mpiexec`, Slurm's `srun`) started, when sigpu is built with `--features mpi`.
//! `sigpu ldpc simulate` and `sigpu lns certify` split their work across them; [`run`] runs
//! such a command on them and ends every rank together when one fails.

use anyhow::Result;
use sigpu_runtime::ranks::{self, One, Ranks};
use std::process::ExitCode;

/// Runs `command` (named in errors, e.g. `ldpc simulate`) on the ranks this process is one
/// of. Under MPI with several ranks, a failure every rank learnt of together (a
/// [`ranks::RankFailure`]) is printed by rank 0 alone and every rank exits with status 1; any
/// other failure, or a panic, on any rank is printed with its rank and ends every rank
/// (`MPI_Abort`), where the others would otherwise wait for it forever.
pub fn run(command: &str, f: impl FnOnce(&dyn Ranks) -> Result<ExitCode>) -> Result<ExitCode> {
    match ranks::launched_by_mpi() {
        None => f(&One),
        Some(size) => on_mpi(command, size, f),
    }
}

/// Whether every rank returned `e` together (so no rank waits for another).
#[cfg(feature = "mpi")]
pub fn agreed(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.is::<ranks::RankFailure>()
            || matches!(
                c.downcast_ref::<sigpu_ldpc::LdpcError>(),
                Some(sigpu_ldpc::LdpcError::Ranks(_))
            )
    })
}

#[cfg(not(feature = "mpi"))]
fn on_mpi(
    command: &str,
    size: usize,
    f: impl FnOnce(&dyn Ranks) -> Result<ExitCode>,
) -> Result<ExitCode> {
    if size > 1 {
        anyhow::bail!(
            "{command}: started by an MPI launcher as one of {size} processes, but this sigpu \
             was built without MPI, so each process would run the whole command; build it with \
             `cargo build --release --features mpi` (README: Running on a cluster)"
        );
    }
    f(&One)
}

#[cfg(feature = "mpi")]
fn on_mpi(
    command: &str,
    _size: usize,
    f: impl FnOnce(&dyn Ranks) -> Result<ExitCode>,
) -> Result<ExitCode> {
    let mpi = ranks::Mpi::init().map_err(|e| anyhow::anyhow!("{command}: {e}"))?;
    let (rank, size) = (mpi.rank(), mpi.size());
    if size == 1 {
        return f(&mpi);
    }
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        default(info);
        eprintln!("error: rank {rank} of {size} panicked; ending every rank");
        ranks::abort_world(101)
    }));
    match f(&mpi) {
        Ok(code) => Ok(code),
        Err(e) if agreed(&e) && rank == 0 => Err(e),
        Err(e) if agreed(&e) => Ok(ExitCode::FAILURE),
        Err(e) => {
            eprintln!("error: rank {rank} of {size}: {e:#}; ending every rank");
            mpi.abort(1)
        }
    }
}
