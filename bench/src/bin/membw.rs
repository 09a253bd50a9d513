//! Memory read bandwidth: sum a 512 MiB buffer of u64 several times; prints the best GB/s as
//! JSON. The reference each decode throughput is compared with.
use std::time::Instant;

fn main() {
    let words = 64usize << 20; // 512 MiB
    let buf: Vec<u64> = (0..words as u64).collect();
    let mut best = f64::INFINITY;
    let mut total = 0u64;
    for _ in 0..7 {
        let t = Instant::now();
        // Four independent sums so the adds are not the bottleneck.
        let mut s = [0u64; 4];
        for ch in std::hint::black_box(&buf).chunks_exact(4) {
            s[0] = s[0].wrapping_add(ch[0]);
            s[1] = s[1].wrapping_add(ch[1]);
            s[2] = s[2].wrapping_add(ch[2]);
            s[3] = s[3].wrapping_add(ch[3]);
        }
        total = total.wrapping_add(s.iter().fold(0, |a, b| a.wrapping_add(*b)));
        best = best.min(t.elapsed().as_secs_f64());
    }
    let bytes = (words * 8) as f64;
    println!("{{\"bytes\":{},\"min_s\":{best},\"gb_per_s\":{},\"checksum\":{total}}}", bytes, bytes / best / 1e9);
}
