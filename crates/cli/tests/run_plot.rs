//! `spindle run --plot`: the arm's textbook shapes, asserted from the data
//! behind the sheet's lanes, and the sheet itself (one lane and one legend
//! entry per policy, the same bytes whatever --jobs says).

mod support;
use support::{spindle, stderr};

use std::process::Command;

use experiments::{Fate, HeadTrace, TracedRequest};
use spindle::run::{RunArgs, traces};

const POLICIES: [&str; 4] = ["fcfs", "sstf", "look", "c-look"];

fn args(policies: &[&str]) -> RunArgs {
    support::run_args(policies, 400, 1)
}

fn start(r: &TracedRequest) -> u64 {
    match r.fate {
        Fate::Served { start, .. } => start,
        _ => u64::MAX,
    }
}

/// The requests waiting, other than `chosen`, when `chosen` was picked.
fn pending(trace: &HeadTrace, chosen: &TracedRequest) -> Vec<TracedRequest> {
    let t = start(chosen);
    trace
        .requests
        .iter()
        .filter(|r| r.id != chosen.id && r.arrival <= t && start(r) > t)
        .copied()
        .collect()
}

fn trace_of(policy: &str) -> HeadTrace {
    let mut all = traces(&args(&[policy]), 40).unwrap();
    assert_eq!(all.len(), 1);
    let (label, trace) = all.remove(0);
    assert_eq!(label, policy);
    assert_eq!(trace.followed, 40);
    // Every followed request was served (no deadlines here), and the arm's
    // recorded path is continuous: each seek leaves where the last ended.
    assert!(trace.requests[..40].iter().all(|r| start(r) < u64::MAX));
    let visits = trace.visits();
    assert!(visits.len() >= 40, "{}", visits.len());
    let mut arm = trace.initial;
    for v in &visits {
        let Fate::Served { from, .. } = v.fate else {
            unreachable!()
        };
        assert_eq!(from, arm);
        arm = v.cylinder;
    }
    trace
}

/// Moves between consecutive visits: +1 outward, -1 inward, 0 none.
fn moves(visits: &[TracedRequest]) -> Vec<i64> {
    visits
        .windows(2)
        .map(|w| i64::from(w[1].cylinder).cmp(&i64::from(w[0].cylinder)) as i64)
        .collect()
}

#[test]
fn fcfs_serves_in_arrival_order() {
    let trace = trace_of("fcfs");
    let ids: Vec<u64> = trace.visits().iter().map(|r| r.id).collect();
    assert!(ids.windows(2).all(|w| w[1] == w[0] + 1), "{ids:?}");
    // The queue formed: some request waited behind others, so FCFS's order
    // was a choice that mattered.
    assert!(
        trace
            .visits()
            .iter()
            .any(|v| !pending(&trace, v).is_empty())
    );
}

#[test]
fn every_sstf_move_goes_to_the_nearest_pending_cylinder() {
    let trace = trace_of("sstf");
    let mut contested = 0;
    for v in trace.visits() {
        let Fate::Served { from, .. } = v.fate else {
            unreachable!()
        };
        let distance = |c: u32| c.abs_diff(from);
        let others = pending(&trace, &v);
        contested += usize::from(!others.is_empty());
        for q in &others {
            assert!(
                distance(v.cylinder) <= distance(q.cylinder),
                "from {from} SSTF went to {} ({} away) while {} ({} away) waited",
                v.cylinder,
                distance(v.cylinder),
                q.cylinder,
                distance(q.cylinder)
            );
        }
    }
    // At load 0.8 most choices are among several requests.
    assert!(contested >= 10, "{contested} contested choices");
}

#[test]
fn look_is_monotone_between_reversals_and_reverses_only_with_nothing_ahead() {
    let trace = trace_of("look");
    let visits = trace.visits();
    let mut direction = 0i64;
    let mut reversals = 0;
    for (i, m) in moves(&visits).into_iter().enumerate() {
        if m == 0 {
            continue;
        }
        if direction != 0 && m != direction {
            reversals += 1;
            // Nothing waited beyond the turning point in the old direction.
            let turn = visits[i].cylinder;
            for q in pending(&trace, &visits[i + 1]) {
                let ahead = i64::from(q.cylinder).cmp(&i64::from(turn)) as i64;
                assert_ne!(
                    ahead, direction,
                    "LOOK turned at {turn} leaving {}",
                    q.cylinder
                );
            }
        }
        direction = m;
    }
    // It sweeps back and forth, several requests per sweep: 12 reversals
    // over 41 visits measured at load 0.8 (queues are short), where serving
    // in random order would reverse about two moves in three (~27).
    assert!((1..=visits.len() / 2).contains(&reversals), "{reversals}");
}

#[test]
fn c_look_moves_one_way_and_jumps_back() {
    let trace = trace_of("c-look");
    let visits = trace.visits();
    let moves = moves(&visits);
    let outward = moves.iter().filter(|&&m| m > 0).count();
    let jumps: Vec<usize> = (0..moves.len()).filter(|&i| moves[i] < 0).collect();
    // Measured at load 0.8: 27 moves outward, 11 jumps back (random order
    // would go back about as often as out).
    assert!(
        !jumps.is_empty() && jumps.len() * 2 <= outward,
        "{outward} {jumps:?}"
    );
    for &i in &jumps {
        // It jumps back only with nothing left beyond the arm, and to the
        // lowest cylinder waiting.
        let (turn, to) = (visits[i].cylinder, visits[i + 1].cylinder);
        for q in pending(&trace, &visits[i + 1]) {
            assert!(
                q.cylinder <= turn,
                "C-LOOK jumped back from {turn} leaving {}",
                q.cylinder
            );
            assert!(
                q.cylinder >= to,
                "C-LOOK jumped to {to}, past {}",
                q.cylinder
            );
        }
    }
}

#[test]
fn tracing_changes_nothing_in_the_run() {
    let (_, trace) = traces(&args(&["sstf"]), 40).unwrap().remove(0);
    assert_eq!(trace.responses.count(), 400);
    let e = experiments::DiskExperiment {
        disk: disk_emu::disk::preset("hp97560").unwrap(),
        policy: "sstf".parse().unwrap(),
        arrivals: experiments::Arrivals::Poisson { rate: rate_at_08() },
        mix: experiments::RequestMix::default(),
        requests: 400,
        warmup: 40,
        seed: 1,
        allow_overload: false,
    };
    let plain = e.run(0).unwrap();
    assert_eq!(
        serde_json::to_string(&plain).unwrap(),
        serde_json::to_string(&trace.report).unwrap()
    );
}

fn rate_at_08() -> f64 {
    experiments::DiskExperiment::rate_for(
        &disk_emu::disk::preset("hp97560").unwrap(),
        &experiments::RequestMix::default(),
        experiments::Load::Utilisation(0.8),
    )
    .unwrap()
}

fn sheet(jobs: &str, dir: &std::path::Path) -> String {
    let path = dir.join(format!("sheet-{jobs}.svg"));
    let mut command = Command::new(env!("CARGO_BIN_EXE_spindle"));
    command.args([
        "run",
        "--requests",
        "400",
        "--replications",
        "3",
        "--jobs",
        jobs,
    ]);
    for p in POLICIES {
        command.args(["--policy", p]);
    }
    let out = command.arg("--plot").arg(&path).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(&path).unwrap()
}

#[test]
fn the_sheet_has_a_lane_and_a_legend_entry_per_policy_whatever_jobs_says() {
    let dir = tempfile::tempdir().unwrap();
    let one = sheet("1", dir.path());
    assert_eq!(one, sheet("3", dir.path()), "the sheet depends on --jobs");
    // Every text drawn: what stands between a `<text …>` and its `</text>`.
    let lines: Vec<&str> = one
        .split("</text>")
        .filter_map(|chunk| chunk.rsplit_once('>').map(|(_, text)| text))
        .collect();
    for p in POLICIES {
        let lane = format!("{p}: arm position, first 40 requests");
        assert_eq!(lines.iter().filter(|l| **l == lane).count(), 1, "{p}");
        assert_eq!(lines.iter().filter(|l| **l == p).count(), 1, "{p}");
    }
    assert!(lines.contains(&"response time (ms, log scale)"));
    assert!(lines.contains(&"cylinder"));
    for q in ["p50", "p95", "p99"] {
        assert!(lines.contains(&q), "{q}");
    }
}

#[test]
fn a_plot_that_cannot_be_drawn_is_refused_before_anything_runs() {
    let out = spindle(&["run", "--requests", "100000000", "--plot", "sheet.gif"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("`.gif` is not drawn"));
}

#[test]
fn a_png_plot_is_the_sheet_rendered_to_pixels() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sheet.png");
    let out = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(["run", "--requests", "300", "--replications", "2"])
        .args(["--policy", "fcfs", "--policy", "sstf", "--plot"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let png = resvg::tiny_skia::Pixmap::load_png(&path).unwrap();
    assert_eq!((png.width(), png.height()), (1400, 560));
    let inked = png.pixels().iter().filter(|p| p.red() < 200).count();
    let share = inked as f64 / png.pixels().len() as f64;
    assert!((0.005..0.5).contains(&share), "inked share {share}");
}
