#!/usr/bin/env bash
# Nightly held-out set (issue 11): regenerate, gate, leak-scan, compare with the kept nights.
#
# Environment (all optional except the secret file):
#   HELDOUT_SECRET_FILE  file holding the secret (mode 0600)   [/etc/scenariogen/heldout.secret]
#   HELDOUT_ROOT         folder of the nights                   [/var/lib/scenariogen/heldout]
#   HELDOUT_N            instances per night                    [40]
#   HELDOUT_KEEP         nights kept (older ones and their private databases are deleted) [7]
#   HELDOUT_SIZE         private fleet size preset: default or small [default]
#   HELDOUT_CLASSES      asset classes, space-separated, or "all" [the default class]
#                        (each keeps its nights in $HELDOUT_ROOT/<class>/)
#   SCENARIOGEN          the CLI                                [scenariogen]
#   plus the store's usual variables (COUCHDB_URL, COUCHDB_USERNAME, COUCHDB_PASSWORD, ...).
#
# Exit codes (the highest over the classes; the log's last line names each class's):
# 0 ok · 2 usage or store error · 3 shortfall (set written, smaller) ·
# 4 stopped by an outage (store, LLM, disk; resumable) · 6 leak found (do not publish) ·
# 5 an instance of a kept night came back (do not publish).
set -u
umask 077

SECRET_FILE="${HELDOUT_SECRET_FILE:-/etc/scenariogen/heldout.secret}"
ROOT="${HELDOUT_ROOT:-/var/lib/scenariogen/heldout}"
N="${HELDOUT_N:-40}"
KEEP="${HELDOUT_KEEP:-7}"
SIZE="${HELDOUT_SIZE:-default}"
CLI="${SCENARIOGEN:-scenariogen}"
CLASSES="${HELDOUT_CLASSES:-}"
NIGHT="$(date -u +%F)"

mkdir -p "$ROOT/logs"
LOG="$ROOT/logs/nightly-$NIGHT.log"

ASSET_ARGS=()
for c in $CLASSES; do ASSET_ARGS+=(--asset "$c"); done
"$CLI" heldout nightly --root "$ROOT" --secret-file "$SECRET_FILE" -n "$N" --keep "$KEEP" \
    --size "$SIZE" --night "$NIGHT" --log "$LOG" "${ASSET_ARGS[@]}" >>"$LOG" 2>&1
rc=$?

# The run scanned its public files and the log as it stood; scan once more now that the log
# holds the run's own output.
for night_dir in "$ROOT"/*/"$NIGHT"; do
    [ -d "$night_dir" ] || continue
    "$CLI" heldout scan "$night_dir" --secret-file "$SECRET_FILE" --night "$NIGHT" \
        --also "$LOG" >>"$LOG" 2>&1
    scan_rc=$?
    if [ "$scan_rc" -ne 0 ] && [ "$rc" -ne 6 ]; then
        rc=$scan_rc
    fi
done
# keep the logs of the kept nights only
ls -1 "$ROOT/logs"/nightly-*.log 2>/dev/null | sort | head -n "-$KEEP" | xargs -r rm -f
exit "$rc"
