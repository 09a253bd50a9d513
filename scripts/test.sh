#!/usr/bin/env bash
# The README's test command: everything the tests need beyond the Rust toolchain is set up here
# (idempotent), then the Rust tests run. Corpus tests read real maps from $BSPKIT_CORPUS and skip
# with a note without it.
#
#   BSPKIT_CORPUS=../shared/maps scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# The library's modules form layers without import cycles (README, "Shape of the code").
python3 scripts/layers.py crates/bspkit/src

cargo test --workspace
