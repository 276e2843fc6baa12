#!/usr/bin/env bash
# check.sh - the GitHub Action's step (action.yml): rebasegen check on a package or plain manifests, with the inputs
# in INPUT_* variables as action.yml passes them; list inputs hold one path per line. Prints
# GitHub annotations (--output github); exits as rebasegen check does: 0 clean, 1 usage or input
# error, 3 ghost diffs remain or generated rules are stale (or drift with fail-on-drift, adoption
# changes with fail-on-adoption, pending creates and deletes with fail-on-create and
# fail-on-delete), 4 lint errors only. REBASEGEN is the binary (default: rebasegen on PATH).
set -euo pipefail
args=(check --output github)
# gh_data VALUE: an input inside a workflow command's message, as GitHub's escapeData escapes it
# (after printf %q has put it on one line): it cannot end the command and start another.
gh_data() {
  local s=${1//%/%25}
  s=${s//$'\r'/%0D}
  printf '%s' "${s//$'\n'/%0A}"
}
add_list() { # FLAG LINES: one flag per non-empty line
  local line words word
  while read -r line; do
    [[ -n ${line//[[:space:]]/} ]] || continue
    if [[ $1 != --value && $1 != --value-yaml && $line =~ [[:space:]] && ! -e $line ]]; then
      # paths written on one line, as a workflow list often is: each exists, the line does not
      read -ra words <<<"$line"
      for word in "${words[@]}"; do [[ -e $word ]] || break; done
      if [[ -e $word ]]; then
        echo "::error::${1#--}: $(gh_data "$(printf %q "$line")") is no path, its words are: give one path per line"
        exit 1
      fi
    fi
    args+=("$1" "$line")
  done <<<"$2"
  return 0
}
required() { # NAME VALUE WHAT: an error annotation when VALUE is blank: GitHub does not enforce required inputs
  if [[ -z ${2//[[:space:]]/} ]]; then
    echo "::error::give the $1 input: $3"
    exit 1
  fi
}
# a package (its paths, or a consumer's Package CR), plain manifests or both, as rebasegen generate
# was given them: rules generated from -d desired.yaml are stale when the same file comes as a package
pkg=${INPUT_PACKAGE:-} cr=${INPUT_PACKAGE_CR:-} desired=${INPUT_DESIRED:-}
if [[ -z ${pkg//[[:space:]]/} && -z ${cr//[[:space:]]/} && -z ${desired//[[:space:]]/} ]]; then
  echo "::error::give the package input (a ytt package), package-cr (a kapp-controller Package) or desired (plain manifests), as the rules were generated from"
  exit 1
fi
required live "${INPUT_LIVE:-}" "the live objects captured from a test cluster (rebasegen capture's directory, or its live.yaml)"
required rules "${INPUT_RULES:-}" "the rules rebasegen generate wrote (its --output-file)"
add_list --package "$pkg"
add_list --desired "$desired"
add_list --values "${INPUT_VALUES:-}"
add_list --value "${INPUT_VALUE:-}"
add_list --value-yaml "${INPUT_VALUE_YAML:-}"
add_list --live "$INPUT_LIVE"
add_list --rules "$INPUT_RULES"
add_list --ruleset "${INPUT_RULESET:-}"
add_list --crd "${INPUT_CRD:-}"
# only when given: rebasegen's own default applies otherwise
one() { # FLAG VALUE: FLAG VALUE when VALUE is not blank
  if [[ -n ${2//[[:space:]]/} ]]; then args+=("$1" "$2"); fi
}
one --package-cr "$cr"
one --namespace "${INPUT_NAMESPACE:-}"
one --target "${INPUT_TARGET:-}"
one --server-version "${INPUT_SERVER_VERSION:-}"
flag() { # NAME VALUE: --NAME when VALUE is true
  case $2 in
  true) args+=("--$1") ;;
  false | "") ;;
  *) echo "::error::$1: want true or false, got $(gh_data "$(printf %q "$2")")"; exit 1 ;;
  esac
}
flag fail-on-drift "${INPUT_FAIL_ON_DRIFT:-false}"
flag fail-on-adoption "${INPUT_FAIL_ON_ADOPTION:-false}"
flag fail-on-create "${INPUT_FAIL_ON_CREATE:-false}"
flag fail-on-delete "${INPUT_FAIL_ON_DELETE:-false}"
flag no-operational "${INPUT_NO_OPERATIONAL:-false}"
exec "${REBASEGEN:-rebasegen}" "${args[@]}"
