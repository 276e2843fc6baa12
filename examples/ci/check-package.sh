#!/usr/bin/env bash
# check-package.sh: the CI job for a Carvel package that commits rebasegen-generated rules.
# Fails (exit 3) when ghost diffs remain under the package's rules or the committed generated
# rules are stale, 4 on lint errors only; drift in the live objects is a warning.
#
#   check-package.sh PACKAGE_CONFIG_DIR [VALUES_FILE] LIVE_YAML RULES_FILE
#
# VALUES_FILE is optional: without it the package is checked with its own defaults.
# LIVE_YAML is what `rebasegen capture` wrote from a test cluster the package was deployed to.
# Set OUTPUT=github in GitHub Actions to get annotations on the rules file. Set NAMESPACE for the
# package's objects without one; unset, rebasegen uses the namespace their live objects are in.
set -euo pipefail
if [[ $# -ne 3 && $# -ne 4 ]]; then
  echo "usage: check-package.sh PACKAGE_CONFIG_DIR [VALUES_FILE] LIVE_YAML RULES_FILE" >&2
  exit 1
fi
config=$1
args=(check --package "$config")
if [[ $# -eq 4 ]]; then args+=(--values "$2"); shift; fi
live=$2 rules=$3
args+=(--live "$live" --rules "$rules" --output "${OUTPUT:-text}")
if [[ -n ${NAMESPACE:-} ]]; then args+=(--namespace "$NAMESPACE"); fi
rebasegen "${args[@]}"
