//! Writes the committed sample maps under `samples/` from the library's own builders.
//! Run from the workspace root: `cargo run -p bspkit --example make_samples`.

fn main() -> std::io::Result<()> {
    let dir = std::path::Path::new("samples");
    std::fs::create_dir_all(dir)?;
    for (name, bytes) in bspkit::build::samples() {
        std::fs::write(dir.join(name), bytes)?;
        println!("wrote samples/{name}");
    }
    Ok(())
}
