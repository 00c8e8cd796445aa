#!/usr/bin/env bash
# Builds the DocC catalog of each library module with the toolchain's `docc`, treating
# every documentation warning (a broken ``symbol`` link, an unknown topic…) as an error.
#
#   scripts/build-docs.sh [swift] [docc] [output-dir] [swift build flags…]
#
# Symbol graphs come from `swift package dump-symbol-graph`, which builds the package in
# .build with the given flags (pass the same ones as the main build so it is reused) and
# extracts the public symbols of every module. It builds with every package trait on
# (BenchmarkSwitches too): the next `swift build`/`swift test` rebuilds the module with the
# default traits, which is why CI runs the tests before this. No plugin is declared in Package.swift, so
# apps that depend on MedVault resolve nothing more.
set -euo pipefail
cd "$(dirname "$0")/.."

swift_cmd=${1:-swift}
docc_cmd=${2:-docc}
output=${3:-.build-docs}
shift $(( $# < 3 ? $# : 3 ))

if ! command -v "$docc_cmd" >/dev/null 2>&1; then
    if command -v xcrun >/dev/null 2>&1 && xcrun --find docc >/dev/null 2>&1; then
        docc_cmd="$(xcrun --find docc)"
    else
        echo "error: docc not found; it ships with the Swift toolchain (set DOCC=/path/to/docc)" >&2
        exit 1
    fi
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! "$swift_cmd" package "$@" dump-symbol-graph --minimum-access-level public >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
fi
graphs=$(sed -n 's/^Files written to //p' "$log" | tail -n 1)
if [[ -z "$graphs" || ! -d "$graphs" ]]; then
    cat "$log" >&2
    echo "error: could not find the symbol graphs dump-symbol-graph wrote" >&2
    exit 1
fi

rm -rf "$output"
mkdir -p "$output"
for module in MedVaultCore MedVaultKeys MedVault MedVaultICD11 MedVaultSyncWire MedVaultSync; do
    module_graphs="$output/symbol-graphs/$module"
    mkdir -p "$module_graphs"
    # The module's own graph and its extension graphs (Module@Other.symbols.json).
    cp "$graphs/$module.symbols.json" "$module_graphs/"
    find "$graphs" -maxdepth 1 -name "$module@*.symbols.json" -exec cp {} "$module_graphs/" \;
    "$docc_cmd" convert "Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$module_graphs" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "org.medvault.$module" \
        --warnings-as-errors \
        --output-path "$output/$module.doccarchive"
done
echo "Documentation: $output/{MedVaultCore,MedVaultKeys,MedVault,MedVaultICD11,MedVaultSyncWire,MedVaultSync}.doccarchive"
