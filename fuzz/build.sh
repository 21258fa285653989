#!/usr/bin/env bash
# Builds one libFuzzer target (fuzz/targets/TARGET.swift) and prints its path.
# SwiftPM has no libFuzzer mode, so the package's module sources are compiled here
# directly with swiftc (-sanitize=fuzzer,address), each into its own module. The
# targets that need the same modules share one build of them, under
# .build/fuzz/modules/A+B+C/ (a lock there lets two builds run at once); each target
# is linked to .build/fuzz/TARGET/TARGET. Package.swift, `swift build` and `swift test`
# stay untouched. A module set is rebuilt only when one of its sources, this script or
# the toolchain changed, and a target relinked only when it or its modules changed.
# Usage: fuzz/build.sh TARGET
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
target=${1:?usage: fuzz/build.sh TARGET}

# The package modules each target needs, dependencies first.
case $target in
  http-decoder) modules=(CSyscalls DeviceOracleJSON DeviceOracleHTTP) ;;
  json-endpoints | info-plist | model-answers) modules=(DeviceOracleJSON DeviceOracleRules DeviceOracleWire) ;;
  *) echo "unknown fuzz target '$target' (http-decoder, json-endpoints, info-plist, model-answers)" >&2; exit 2 ;;
esac

out=$repo/.build/fuzz/$target
binary=$out/$target
lib=$repo/.build/fuzz/modules/$(IFS=+; echo "${modules[*]}")
mkdir -p "$out" "$lib"
cd "$repo"

# -O keeps Swift's overflow and bounds checks (only -Ounchecked drops them) and fuzzes
# several times faster than -Onone; -g keeps crash reports readable. -enable-testing
# lets a harness reach internal API (`@testable import`) without widening access.
swift_flags=(-swift-version 6 -parse-as-library -O -g -sanitize=fuzzer,address
  -package-name DeviceOracle -enable-testing -I "$lib" -I "$lib/CSyscalls")

sources=("$0")
for module in "${modules[@]}"; do
  while IFS= read -r file; do sources+=("$file"); done < <(find "Sources/$module" -type f | sort)
done
lib_stamp=$( { swiftc --version 2>&1; cat "${sources[@]}"; } | sha256sum | cut -d' ' -f1)
stamp=$( { echo "$lib_stamp"; cat "fuzz/targets/$target.swift"; } | sha256sum | cut -d' ' -f1)

# Held until this script exits: another target's build of the same modules waits here,
# then finds them built.
exec 9>"$lib/lock"
flock 9
objects=()
for module in "${modules[@]}"; do objects+=("$lib/$module.o"); done
if [[ $(cat "$lib/stamp" 2>/dev/null) != "$lib_stamp" ]]; then
  rm -f "$lib/stamp"
  for module in "${modules[@]}"; do
    echo "fuzz/build.sh: compiling $module for $target" >&2
    if [[ $module == CSyscalls ]]; then
      # The C target: its object, and a module map so Swift can import its header.
      mkdir -p "$lib/CSyscalls"
      printf 'module CSyscalls {\n  header "%s"\n  export *\n}\n' \
        "$repo/Sources/CSyscalls/include/CSyscalls.h" >"$lib/CSyscalls/module.modulemap"
      clang -O1 -g -fsanitize=address,fuzzer-no-link -I Sources/CSyscalls/include \
        -c Sources/CSyscalls/shim.c -o "$lib/CSyscalls.o"
    else
      mapfile -t files < <(find "Sources/$module" -name '*.swift' | sort)
      swiftc "${swift_flags[@]}" -wmo -module-name "$module" -emit-module \
        -emit-module-path "$lib/$module.swiftmodule" -c "${files[@]}" -o "$lib/$module.o"
    fi
  done
  echo "$lib_stamp" >"$lib/stamp"
fi
if [[ ! -x $binary || $(cat "$out/stamp" 2>/dev/null) != "$stamp" ]]; then
  echo "fuzz/build.sh: linking $target" >&2
  # lld: gold warns about every ASan helper symbol it cannot export.
  swiftc "${swift_flags[@]}" -warnings-as-errors -use-ld=lld -module-name FuzzTarget \
    "fuzz/targets/$target.swift" "${objects[@]}" -o "$binary"
  echo "$stamp" >"$out/stamp"
fi
echo "$binary"
