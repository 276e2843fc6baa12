#!/usr/bin/env bash
# check-package.sh: the CI job for a Carvel package that commits rebasegen-generated rules.
# Fails (exit 3) when ghost diffs remain under the package's rules or the committed generated
# rules are stale, 4 on lint errors only; drift in the live objects is a warning.
#
#   check-package.sh PACKAGE_CONFIG_DIR [VALUES_FILE] LIVE_YAML RULES_FILE [-- CHECK_FLAG...]
#
# VALUES_FILE is optional: without it the package is checked with its own defaults.
# LIVE_YAML is what `rebasegen capture` wrote from a test cluster the package was deployed to.
# Set OUTPUT=github in GitHub Actions to get annotations on the rules file. Set NAMESPACE for the
# package's objects without one; unset, rebasegen uses the namespace their live objects are in.
# Arguments after -- go to rebasegen check as they are, after the script's own (--fail-on-create,
# --fail-on-delete, --fail-on-drift, --value KEY=VAL...: see rebasegen check --help); the
# optional VALUES_FILE is told apart by the count of arguments before the --. Flags after -- win:
# an -o/--output there replaces OUTPUT, an -n/--namespace NAMESPACE (check refuses one flag given
# in both forms, --output text -o json, so the script then leaves its own out).
set -euo pipefail
usage="usage: check-package.sh PACKAGE_CONFIG_DIR [VALUES_FILE] LIVE_YAML RULES_FILE [-- CHECK_FLAG...]"
positional=()
while [[ $# -gt 0 && $1 != -- ]]; do positional+=("$1"); shift; done
if [[ $# -gt 0 ]]; then shift; fi # the --: what follows is check's
if [[ ${#positional[@]} -ne 3 && ${#positional[@]} -ne 4 ]]; then
  echo "$usage" >&2
  exit 1
fi
config=${positional[0]}
args=(check --package "$config")
if [[ ${#positional[@]} -eq 4 ]]; then args+=(--values "${positional[1]}"); fi
n=${#positional[@]}
live=${positional[n-2]} rules=${positional[n-1]}
args+=(--live "$live" --rules "$rules")
given() { # given NAMES ARG...: an ARG is the flag -NAME or --NAME (with =VALUE or not), NAMES a|b
  local re="^--?($1)(=|\$)" a
  for a in "${@:2}"; do if [[ $a =~ $re ]]; then return 0; fi; done
  return 1
}
if ! given 'o|output' "$@"; then args+=(--output "${OUTPUT:-text}"); fi
if [[ -n ${NAMESPACE:-} ]] && ! given 'n|namespace' "$@"; then args+=(--namespace "$NAMESPACE"); fi
rebasegen "${args[@]}" "$@"
