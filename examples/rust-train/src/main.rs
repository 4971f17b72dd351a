//! A small training job whose allocator is picked at build time, as Rust training binaries do:
//! `--features mimalloc` sets `#[global_allocator]` to Debian's libmimalloc through FFI (no
//! crates), the default build uses the system allocator (glibc). An MLP regressor (32-128-128-1)
//! trained with SGD and momentum on minibatches drawn from a replay buffer of heap-allocated
//! samples that the job keeps refilling, every layer's activations and gradients allocated
//! afresh per step. Prints a checksum of the weights; marks its phases for allocab
//! (docs/programs.md, "Phases your program marks"): setup, then one `epoch` per epoch.
//!
//! Usage: allocab-rust-train [EPOCHS [STEPS]]   (default 16 epochs of 60 steps)

use std::fs::{File, OpenOptions};
use std::io::Write;

#[cfg(feature = "mimalloc")]
mod mimalloc {
    use std::alloc::{GlobalAlloc, Layout};

    #[link(name = "mimalloc")]
    extern "C" {
        fn mi_malloc_aligned(size: usize, align: usize) -> *mut u8;
        fn mi_zalloc_aligned(size: usize, align: usize) -> *mut u8;
        fn mi_realloc_aligned(p: *mut u8, size: usize, align: usize) -> *mut u8;
        fn mi_free(p: *mut u8);
    }

    pub struct MiMalloc;

    unsafe impl GlobalAlloc for MiMalloc {
        unsafe fn alloc(&self, l: Layout) -> *mut u8 {
            mi_malloc_aligned(l.size(), l.align())
        }
        unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
            mi_zalloc_aligned(l.size(), l.align())
        }
        unsafe fn realloc(&self, p: *mut u8, l: Layout, size: usize) -> *mut u8 {
            mi_realloc_aligned(p, size, l.align())
        }
        unsafe fn dealloc(&self, p: *mut u8, _l: Layout) {
            mi_free(p)
        }
    }
}

#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The phase marks of allocab: "begin NAME NS PID" / "end NAME NS PID" lines, NS from
/// CLOCK_MONOTONIC, PID this process, each appended with one write to ALLOCAB_PHASE_FILE (nothing
/// when it is not set).
struct Phases(Option<File>);

#[repr(C)]
struct Timespec {
    tv_sec: i64,
    tv_nsec: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
}

impl Phases {
    fn open() -> Phases {
        let path = std::env::var_os("ALLOCAB_PHASE_FILE");
        Phases(path.and_then(|p| OpenOptions::new().append(true).open(p).ok()))
    }
    fn mark(&mut self, what: &str, name: &str) {
        let mut ts = Timespec { tv_sec: 0, tv_nsec: 0 };
        let mut cpu = Timespec { tv_sec: 0, tv_nsec: 0 };
        unsafe { clock_gettime(1, &mut ts) }; // CLOCK_MONOTONIC
        unsafe { clock_gettime(2, &mut cpu) }; // CLOCK_PROCESS_CPUTIME_ID: every thread
        if let Some(f) = self.0.as_mut() {
            let ns = ts.tv_sec * 1_000_000_000 + ts.tv_nsec;
            let cpu_ns = cpu.tv_sec * 1_000_000_000 + cpu.tv_nsec;
            let line = format!("{} {} {} {} {}\n", what, name, ns, std::process::id(), cpu_ns);
            if f.write_all(line.as_bytes()).is_err() {
                self.0 = None;
            }
        }
    }
}

/// xorshift64*: the same numbers on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn uniform(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

struct Layer {
    w: Vec<f32>, // out x in
    b: Vec<f32>,
    vw: Vec<f32>,
    vb: Vec<f32>,
    n_in: usize,
    n_out: usize,
}

impl Layer {
    fn new(n_in: usize, n_out: usize, rng: &mut Rng) -> Layer {
        let scale = (2.0 / n_in as f32).sqrt();
        Layer {
            w: (0..n_in * n_out).map(|_| rng.uniform() * scale).collect(),
            b: vec![0.0; n_out],
            vw: vec![0.0; n_in * n_out],
            vb: vec![0.0; n_out],
            n_in,
            n_out,
        }
    }
    fn forward(&self, x: &[f32]) -> Vec<f32> {
        (0..self.n_out)
            .map(|o| {
                let row = &self.w[o * self.n_in..(o + 1) * self.n_in];
                row.iter().zip(x).map(|(w, v)| w * v).sum::<f32>() + self.b[o]
            })
            .collect()
    }
}

const IN: usize = 32;
const HIDDEN: usize = 128;
const BATCH: usize = 32;
const REPLAY: usize = 4096;

fn target(x: &[f32]) -> f32 {
    x.iter().enumerate().map(|(i, v)| (v * (1.0 + i as f32 * 0.1)).sin()).sum::<f32>() / 8.0
}

/// One SGD step with momentum on a minibatch; returns its mean squared error.
fn step(layers: &mut [Layer], batch: &[&Vec<f32>]) -> f32 {
    let mut grads: Vec<(Vec<f32>, Vec<f32>)> = layers
        .iter()
        .map(|l| (vec![0.0; l.w.len()], vec![0.0; l.b.len()]))
        .collect();
    let mut loss = 0.0;
    for sample in batch {
        let (x, y) = sample.split_at(IN);
        let mut acts: Vec<Vec<f32>> = vec![x.to_vec()];
        for (i, l) in layers.iter().enumerate() {
            let mut a = l.forward(acts.last().unwrap());
            if i + 1 < layers.len() {
                a.iter_mut().for_each(|v| *v = v.max(0.0));
            }
            acts.push(a);
        }
        let err = acts.last().unwrap()[0] - y[0];
        loss += err * err;
        let mut delta = vec![2.0 * err / batch.len() as f32];
        for i in (0..layers.len()).rev() {
            let l = &layers[i];
            let input = &acts[i];
            let (gw, gb) = &mut grads[i];
            let mut back = vec![0.0f32; l.n_in];
            for o in 0..l.n_out {
                gb[o] += delta[o];
                for k in 0..l.n_in {
                    gw[o * l.n_in + k] += delta[o] * input[k];
                    back[k] += delta[o] * l.w[o * l.n_in + k];
                }
            }
            if i > 0 {
                for (b, a) in back.iter_mut().zip(&acts[i]) {
                    if *a <= 0.0 {
                        *b = 0.0;
                    }
                }
            }
            delta = back;
        }
    }
    for (l, (gw, gb)) in layers.iter_mut().zip(&grads) {
        for k in 0..l.w.len() {
            l.vw[k] = 0.9 * l.vw[k] + gw[k];
            l.w[k] -= 0.01 * l.vw[k];
        }
        for k in 0..l.b.len() {
            l.vb[k] = 0.9 * l.vb[k] + gb[k];
            l.b[k] -= 0.01 * l.vb[k];
        }
    }
    loss / batch.len() as f32
}

fn sample(rng: &mut Rng) -> Vec<f32> {
    let mut s: Vec<f32> = (0..IN).map(|_| rng.uniform()).collect();
    let y = target(&s);
    s.push(y);
    s
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let num = |i: usize, d: usize| args.get(i).map_or(Ok(d), |s| s.parse::<usize>());
    let (epochs, steps) = match (num(1, 16), num(2, 60)) {
        (Ok(e), Ok(s)) if e > 0 && s > 0 => (e, s),
        _ => {
            eprintln!("usage: {} [EPOCHS [STEPS]] (positive integers)", args[0]);
            std::process::exit(2);
        }
    };
    let mut phases = Phases::open();
    phases.mark("begin", "setup");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut layers = vec![
        Layer::new(IN, HIDDEN, &mut rng),
        Layer::new(HIDDEN, HIDDEN, &mut rng),
        Layer::new(HIDDEN, 1, &mut rng),
    ];
    let mut replay: std::collections::VecDeque<Vec<f32>> =
        (0..REPLAY).map(|_| sample(&mut rng)).collect();
    phases.mark("end", "setup");
    let mut total = 0.0f64;
    for _ in 0..epochs {
        phases.mark("begin", "epoch");
        for _ in 0..steps {
            for _ in 0..BATCH {
                replay.pop_front();
                replay.push_back(sample(&mut rng));
            }
            let batch: Vec<&Vec<f32>> = (0..BATCH).map(|_| &replay[rng.below(REPLAY)]).collect();
            total += step(&mut layers, &batch) as f64;
        }
        phases.mark("end", "epoch");
    }
    let sum: f64 = layers.iter().flat_map(|l| l.w.iter().chain(&l.b)).map(|&v| v as f64).sum();
    println!("checksum {:.6e} {:.6e}", sum, total);
}
