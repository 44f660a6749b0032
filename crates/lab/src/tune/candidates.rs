//! The launch shapes the search tries, per family and part: the default first, then a grid
//! around it, each kept only where it passes its family's static rules (what the driver says
//! of a shape on the device is checked when it is tried).

use sigpu_runtime::cuda::tuning::{
    validate_sos, Family, FusedSumPolicy, PlrPolicy, Policies, ScanTile, StreamPolicy,
};

/// One part of a family's search: a tile or shape timed on its own cases.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Part {
    /// The PLR tail-carry kernel's tile.
    PlrTailCarry,
    /// The PLR look-back kernel's tile.
    PlrLookBack,
    /// The PLR prefix-sum tile.
    PlrPrefixSum,
    /// The fused section kernel's tile.
    Sos,
    /// The LNS streaming kernels' shape.
    LnsStream,
    /// The LNS fused sum's shape.
    LnsFusedSum,
}

impl Part {
    /// The parts of `family`, in the order they are searched.
    pub fn of(family: Family) -> &'static [Part] {
        match family {
            Family::Plr => &[Part::PlrTailCarry, Part::PlrLookBack, Part::PlrPrefixSum],
            Family::Sos => &[Part::Sos],
            Family::LnsStream => &[Part::LnsStream],
            Family::LnsFusedSum => &[Part::LnsFusedSum],
        }
    }

    /// The name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Part::PlrTailCarry => "plr tail-carry",
            Part::PlrLookBack => "plr look-back",
            Part::PlrPrefixSum => "plr prefix-sum",
            Part::Sos => "sos",
            Part::LnsStream => "lns-stream",
            Part::LnsFusedSum => "lns-fused-sum",
        }
    }
}

/// One shape to try: its label and the policies with it in place (the rest the default).
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// How reports name it (`256x64`, `256x128/2`, `512t 16/SM x2`, `4/SM 2 stages`).
    pub label: String,
    /// The default policies with this shape in place.
    pub policies: Policies,
}

fn tile(threads: u32, bytes_per_thread: u32, min_blocks: u32) -> ScanTile {
    ScanTile {
        threads,
        bytes_per_thread,
        min_blocks,
    }
}

fn tile_label(t: &ScanTile) -> String {
    match t.min_blocks {
        0 => format!("{}x{}B", t.threads, t.bytes_per_thread),
        b => format!("{}x{}B/{b}", t.threads, t.bytes_per_thread),
    }
}

/// `default` then every tile of threads × bytes, then `default` with each blocks-per-SM bound,
/// then `extra`, without repeats.
fn tiles(
    default: ScanTile,
    (threads, bytes): (&[u32], &[u32]),
    bounds: &[u32],
    extra: &[ScanTile],
) -> Vec<ScanTile> {
    let mut out = vec![default];
    let grid = threads
        .iter()
        .flat_map(|&t| bytes.iter().map(move |&b| tile(t, b, 0)));
    let bounded = bounds.iter().map(|&m| ScanTile {
        min_blocks: m,
        ..default
    });
    for t in grid.chain(bounded).chain(extra.iter().copied()) {
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

/// The candidates of `part`, the default first, every one within its family's static rules.
pub fn candidates(part: Part) -> Vec<Candidate> {
    let base = Policies::default();
    let plr = |t: ScanTile, set: fn(&mut PlrPolicy, ScanTile)| {
        let mut p = base;
        set(&mut p.plr, t);
        p.plr.validate().is_ok().then(|| Candidate {
            label: tile_label(&t),
            policies: p,
        })
    };
    let d = PlrPolicy::default();
    let list: Vec<Option<Candidate>> = match part {
        Part::PlrTailCarry => tiles(
            d.tail_carry,
            (&[128, 256, 384, 512], &[32, 64, 128]),
            &[2, 4],
            &[],
        )
        .into_iter()
        .map(|t| plr(t, |p, t| p.tail_carry = t))
        .collect(),
        Part::PlrLookBack => tiles(
            d.look_back,
            (&[128, 256, 384, 512], &[64, 128, 256]),
            &[2, 3],
            // Wider blocks with a register bound: the order-2 look-back's best on an H200
            // (512 x 32 i32 /2, 75% of copy against 65% for the default at 2^28).
            &[tile(512, 128, 2), tile(384, 128, 2), tile(512, 64, 2)],
        )
        .into_iter()
        .map(|t| plr(t, |p, t| p.look_back = t))
        .collect(),
        Part::PlrPrefixSum => tiles(
            d.prefix_sum,
            (&[256, 384, 512, 768], &[64, 128, 256]),
            &[2],
            &[],
        )
        .into_iter()
        .map(|t| plr(t, |p, t| p.prefix_sum = t))
        .collect(),
        Part::Sos => tiles(
            base.sos,
            (&[128, 192, 256, 320, 384], &[64, 128]),
            &[2, 3, 4],
            &[],
        )
        .into_iter()
        .map(|t| {
            validate_sos(&t).is_ok().then(|| Candidate {
                label: tile_label(&t),
                policies: Policies { sos: t, ..base },
            })
        })
        .collect(),
        Part::LnsStream => {
            let mut shapes = vec![base.lns_stream];
            for unroll in [1, 2, 4] {
                for threads in [128, 256, 512] {
                    for blocks_per_sm in [8, 16, 32] {
                        let s = StreamPolicy {
                            threads,
                            blocks_per_sm,
                            unroll,
                        };
                        if !shapes.contains(&s) {
                            shapes.push(s);
                        }
                    }
                }
            }
            (shapes.into_iter())
                .map(|s| {
                    s.validate().is_ok().then(|| Candidate {
                        label: format!("{}t {}/SM x{}", s.threads, s.blocks_per_sm, s.unroll),
                        policies: Policies {
                            lns_stream: s,
                            ..base
                        },
                    })
                })
                .collect()
        }
        Part::LnsFusedSum => {
            let mut shapes = vec![base.lns_fused_sum];
            for blocks_per_sm in [2, 3, 4] {
                for stages in [0, 1, 2] {
                    let s = FusedSumPolicy {
                        blocks_per_sm,
                        stages,
                    };
                    if !shapes.contains(&s) {
                        shapes.push(s);
                    }
                }
            }
            (shapes.into_iter())
                .map(|s| {
                    s.validate().is_ok().then(|| Candidate {
                        label: format!("{}/SM {} stages", s.blocks_per_sm, s.stages),
                        policies: Policies {
                            lns_fused_sum: s,
                            ..base
                        },
                    })
                })
                .collect()
        }
    };
    list.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_part_starts_with_the_default_and_keeps_its_rules() {
        for family in Family::ALL {
            for &part in Part::of(family) {
                let list = candidates(part);
                assert!(list.len() >= 8, "{}: {}", part.name(), list.len());
                assert_eq!(list[0].policies, Policies::default(), "{}", part.name());
                for (i, c) in list.iter().enumerate() {
                    c.policies
                        .validate()
                        .unwrap_or_else(|e| panic!("{}: {e}", c.label));
                    assert!(
                        !list[..i].iter().any(|o| o.policies == c.policies),
                        "{} repeated",
                        c.label
                    );
                    // Only this family differs from the default.
                    for other in Family::ALL.into_iter().filter(|&f| f != family) {
                        assert_eq!(
                            c.policies.get_json(other),
                            Policies::default().get_json(other),
                            "{}",
                            c.label
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn tiles_over_the_shared_memory_are_left_out() {
        // 512 threads (+ a warp) x 128 bytes is 69 KiB: more than the tail-carry kernel's
        // static tile may take; 384 x 128 bytes is more than the section kernel's 40 KiB.
        let tail = candidates(Part::PlrTailCarry);
        assert!(!tail.iter().any(|c| c.label == "512x128B"));
        assert!(tail.iter().any(|c| c.label == "512x64B"));
        let sos = candidates(Part::Sos);
        assert!(!sos.iter().any(|c| c.label == "384x128B"));
        assert!(sos.iter().any(|c| c.label == "320x128B"));
    }
}
