//! bspkit round-trip write: `Bsp::from_bytes`, then `edit::Editor::new(&bsp)?.to_bytes()` with no
//! change (the path every edit takes through the lossless writer). Before the timed runs the output
//! is checked once to be byte-identical to the input; a map whose output differs is a failure.
fn write(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let bsp = bspkit::Bsp::from_bytes(bytes).map_err(|e| e.to_string())?;
    let ed = bspkit::edit::Editor::new(&bsp).map_err(|e| e.to_string())?;
    ed.to_bytes().map_err(|e| e.to_string())
}

fn timed(bytes: &[u8]) -> Result<u64, String> {
    write(bytes).map(|out| out.len() as u64)
}

fn verify(bytes: &[u8]) -> Result<(), String> {
    let out = write(bytes)?;
    match out.iter().zip(bytes).position(|(a, b)| a != b) {
        Some(at) => Err(format!("output differs from the input at byte {at}")),
        None if out.len() != bytes.len() => Err(format!("output is {} bytes, input {}", out.len(), bytes.len())),
        None => Ok(()),
    }
}

fn main() {
    bspkit_bench::main_with_verify("bspkit_write", timed, verify);
}
