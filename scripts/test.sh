#!/usr/bin/env bash
# The README's test command: everything the tests need beyond the Rust toolchain is set up here
# (idempotent), then the Rust tests run. Corpus tests read real maps from $BSPKIT_CORPUS and skip
# with a note without it.
#
#   BSPKIT_CORPUS=../shared/maps scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# Each phase's wall time on stderr, so a run's log shows where its time went (the test
# binaries and pytest print their own run times; this adds the builds and set-up around them).
started=$(date +%s)
phase() { echo "[test.sh] $(( $(date +%s) - started )) s: $1" >&2; }

# A one-shot build: no incremental-compilation state (it was 3.0 GB of a fresh clone's 5.8 GB
# `target/` after CI, and is only of use to an edit-compile loop). README, "Set-up cost".
export CARGO_INCREMENTAL=0

# The library's modules form layers without import cycles (README, "Shape of the code").
python3 scripts/layers.py crates/bspkit/src

# The crates built alone (`cargo run -p bsp-cli`, maturin's build of bspkit-py) resolve the
# library's dependency features as this test build does, so the library and the Arrow crates are
# compiled once (docs/setup-test-time.md, "Set-up cost"); fails naming the package whose features drifted.
python3 scripts/feature_drift.py

# Python oracles: srctools' VTF reader (MIT, PyPI) checks bspkit's VTF decoding
# (crates/bspkit/tests/texture_oracle.rs). A venv under target/ keeps it out of the system.
VENV=target/oracle-venv
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c "import srctools.vtf" 2>/dev/null; then
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "srctools==2.7.0"
fi
export BSPKIT_PYTHON="$PWD/$VENV/bin/python"
# The Khronos glTF validator (npm `gltf-validator`, pinned by tools/gltf-validate/package-lock.json)
# checks every `bsp export` output (crates/bsp-cli/tests/export_cli.rs). `npm ci` runs only when
# node_modules is missing or older than the lock file.
GLTF=tools/gltf-validate
if [ ! -d "$GLTF/node_modules/gltf-validator" ] || [ "$GLTF/package-lock.json" -nt "$GLTF/node_modules/.package-lock.json" ]; then
    (cd "$GLTF" && npm ci --no-audit --no-fund --silent)
fi
export BSPKIT_GLTF_VALIDATOR="$PWD/$GLTF/validate.mjs"
# `bsp view`'s page: three.js, esbuild and playwright-core (which drives Debian's chromium in the
# browser test), pinned by viewer/package-lock.json; the tests rebuild the committed bundle and
# load the page in headless Chromium (crates/bsp-cli/tests/all/view_cli.rs and browser_view.rs).
if [ ! -d viewer/node_modules/three ] || [ viewer/package-lock.json -nt viewer/node_modules/.package-lock.json ]; then
    (cd viewer && npm ci --no-audit --no-fund --silent)
fi
# With this set, a missing oracle fails the test instead of skipping it.
export BSPKIT_REQUIRE_ORACLES=1

phase "set-up done; cargo test --workspace (build and run)"
cargo test --workspace

# The Python package (crates/bspkit-py, `import bspkit`): built into a venv under target/ with
# maturin (a debug build: fast to compile), then its pytest suite runs over the corpus and
# compares with the `bsp` binary. Versions pinned; everything comes from PyPI.
PYVENV=target/py-venv
if [ ! -x "$PYVENV/bin/python" ]; then
    python3 -m venv "$PYVENV"
fi
# pytest-xdist runs the suite on two worker processes: its two Blender runs (a minute each) and
# the corpus tests then share the cores instead of running one after another. `--dist loadgroup`
# (in the pytest line below) keeps the tests marked with one `xdist_group` on one worker, so
# their module fixtures are made once (test_scan_tables.py), and hands out the other tests one
# at a time as a worker comes free.
"$PYVENV/bin/python" -m pip install --quiet --disable-pip-version-check "maturin==1.9.6" "numpy==2.2.6" "pytest==8.3.5" \
    "pytest-xdist==3.8.0"
# The library tables (`bspkit.scan`, `bsp scan --out`) are read back with pyarrow and DuckDB,
# and scanned on a local Dask cluster (test_scan_tables.py): wheels only, about 1.5 min.
"$PYVENV/bin/python" -m pip install --quiet --disable-pip-version-check --only-binary=:all: \
    "pyarrow==21.0.0" "duckdb==1.3.2" "dask[distributed]==2025.7.0"
# Maps in an object store (test_object_store_scan_equals_the_local_scan): s3fs, and moto's local
# S3-compatible server to test against. botocore/boto3 pinned to the release aiobotocore (s3fs)
# accepts, or pip backtracks for minutes. Not required: without them that test skips.
"$PYVENV/bin/python" -m pip install --quiet --disable-pip-version-check --only-binary=:all: \
    "s3fs==2026.9.0" "botocore==1.43.117" "boto3==1.43.117" "moto[server]==5.2.5" \
    || echo "warning: s3fs / moto[server] not installed; the object-store scan test will skip" >&2
phase "Python packages installed; maturin develop"
VIRTUAL_ENV="$PWD/$PYVENV" PATH="$PWD/$PYVENV/bin:$PATH" maturin develop --quiet -m crates/bspkit-py/Cargo.toml
# target/debug/bsp is the binary `cargo test --workspace` built for the CLI's integration tests
# (a separate `cargo build -p bsp-cli` would build the library once more: without the
# dev-dependencies, some of its dependencies get other features).
test -x target/debug/bsp
# README.md as executable documentation: every `bsp` line of its `sh` examples, and every example
# line of every command's `--help`, runs against corpus and sample maps and must exit as the README
# (or the script's list for --help lines) says (the table of stand-in files is in the script).
phase "README examples"
BSP="$PWD/target/debug/bsp" python3 scripts/readme_examples.py
rc=0
phase "pytest"
BSPKIT_CLI="$PWD/target/debug/bsp" "$PYVENV/bin/python" -m pytest -q -p no:cacheprovider -n 2 --dist loadgroup crates/bspkit-py/tests || rc=$?
if [ "$rc" -eq 5 ]; then
    echo "error: the Python test suite collected no tests" >&2
    exit 1
fi
phase "end (pytest exit status $rc)"
exit "$rc"
