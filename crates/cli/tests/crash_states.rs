//! `spindle crash-states` as a user meets it: images of a recorded log,
//! the same seed writing byte-identical images and another seed others,
//! and bad input named.

mod support;
use support::{spindle, stderr};

use blockdev::crash_log::LogWriter;

fn images(dir: &std::path::Path) -> Vec<Vec<u8>> {
    (0..8)
        .map(|i| std::fs::read(dir.join(format!("crash-{i:04}.img"))).unwrap())
        .collect()
}

#[test]
fn the_same_seed_writes_the_same_images_and_another_seed_others() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("run.log");
    let mut w = LogWriter::create(&log, 64 << 10, 512).unwrap();
    for i in 0..40u64 {
        let data = vec![i as u8 + 1; 2048];
        w.write((i % 30) * 2048, 2048, Some(&data), i % 9 == 0);
        if i % 10 == 9 {
            w.flush(w.writes());
        }
    }
    w.finish().unwrap();
    let run = |seed: &str, out: &str| {
        let out = dir.path().join(out);
        let o = spindle(&[
            "crash-states",
            log.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--count",
            "8",
            "--seed",
            seed,
            "--model",
            "torn",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let text = String::from_utf8(o.stdout).unwrap();
        assert_eq!(text.lines().count(), 8, "{text}");
        assert!(text.starts_with("crash-0000.img: cut after "), "{text}");
        assert!(out.join("crash-states.json").exists());
        (images(&out), text)
    };
    let (a, text_a) = run("3", "a");
    let (b, text_b) = run("3", "b");
    let (c, _) = run("4", "c");
    assert!(a == b, "same seed, same images");
    assert_eq!(text_a, text_b);
    assert!(a != c, "another seed, other images");

    let o = spindle(&["crash-states", "/nonexistent.log", "--out", "x"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("/nonexistent.log"), "{}", stderr(&o));
    let o = spindle(&[
        "crash-states",
        log.to_str().unwrap(),
        "--out",
        "x",
        "--model",
        "melt",
    ]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("expected all, subset, prefix or torn"),
        "{}",
        stderr(&o)
    );
}
