#!/bin/bash
# Build upstream loom 0.7.3's exploration with the API wbcheck's harness calls, to count its
# executions on the same models (docs/performance.md, "The repaired loom: before and after").
# Usage: third_party/loom/upstream-baseline.sh DIR
#   DIR gets upstream 0.7.3 (this copy with every patch reversed, newest first), then
#   upstream-api.patch: `loom::choose` (the choose patch, which models need) and inert shims for
#   the Builder fields, `loom::in_slice`, `loom::graph_id` and `loom::thread_index` the later patches added. Then point a worktree's
#   `[patch.crates-io] loom` at DIR and build wbcheck there.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:?usage: upstream-baseline.sh DIR}
[ -e "$dir" ] && { echo "upstream-baseline.sh: $dir exists" >&2; exit 2; }
mkdir -p "$dir"
cp -r "$here/Cargo.toml" "$here/src" "$here/tests" "$dir/"
cd "$dir"
for p in free-switches initials start-wakes thread-index wakes graphs join speed-2 source-sets split bounded-sleep speed completeness choose rc11; do
    patch -R -p1 -s < "$here/loom-0.7.3-$p.patch"
done
patch -p1 -s < "$here/upstream-api.patch"
echo "upstream loom 0.7.3 (with loom::choose and inert API shims) in $dir"
