# Runs a shell function over a list, a few at a time (sourced by scripts/sanitize.sh and
# scripts/fuzz.sh).
#
#   ods_parallel <jobs> <function> <item>...
#       runs `<function> <item>` for every item in the background, at most <jobs> at once, and
#       returns when all have ended. The function keeps its own outcome (a file per item):
#       exit statuses are not collected. Waits for every background job of the calling shell.
ods_parallel() {
    local max=$1 fn=$2 running=0 item
    shift 2
    for item in "$@"; do
        if [ "$running" -ge "$max" ]; then
            wait -n || true
            running=$((running - 1))
        fi
        "$fn" "$item" &
        running=$((running + 1))
    done
    wait || true
}
