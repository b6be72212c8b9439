#!/bin/bash -eu
# Build every target with the service's sanitizer flags and ship each with its seed corpus. The
# sched_ targets run their scenario's default (fixed) revision, the right thing for continuous
# fuzzing; hunting a known-broken revision is a local campaign (fuzz/README.md).
cd "$SRC/wbcheck"
cargo fuzz build -O
release=fuzz/target/x86_64-unknown-linux-gnu/release
for src in fuzz/fuzz_targets/*.rs; do
    target=$(basename "$src" .rs)
    cp "$release/$target" "$OUT/"
    (cd "fuzz/corpus/$target" && zip -q "$OUT/${target}_seed_corpus.zip" seed-*)
done
