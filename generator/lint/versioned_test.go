package lint

import (
	"os"
	"path/filepath"
	"testing"
)

// TestVersionedResourceNamed (issue 24, newcomer13 N13-7): a kindNamespaceNameMatcher naming a
// versioned resource's manifest name never matches under kapp, which renames the resource
// NAME-ver-(N+1) before its rebase rules run (diff/change_set_with_versioned_rs.go), yet lint
// called it matched (the desired object is named NAME). It now warns with the matcher kapp
// matches; a resource kept as the original too (versioned-keep-original, which kapp also diffs
// as NAME) and a plain one are not reported.
func TestVersionedResourceNamed(t *testing.T) {
	dir := t.TempDir()
	desired := filepath.Join(dir, "desired.yaml")
	os.WriteFile(desired, []byte(`apiVersion: v1
kind: Secret
metadata:
  name: creds
  namespace: app
  annotations: {kapp.k14s.io/versioned: ""}
---
apiVersion: v1
kind: Secret
metadata:
  name: kept
  namespace: app
  annotations: {kapp.k14s.io/versioned: "", kapp.k14s.io/versioned-keep-original: ""}
---
apiVersion: v1
kind: Secret
metadata: {name: plain, namespace: app}
`), 0o644)
	rules := filepath.Join(dir, "rules.yml")
	os.WriteFile(rules, []byte(`apiVersion: kapp.k14s.io/v1alpha1
kind: Config
rebaseRules:
- paths: [[type]]
  type: copy
  sources: [new, existing]
  resourceMatchers:
  - andMatcher:
      matchers:
      - apiVersionKindMatcher: {apiVersion: v1, kind: Secret}
      - anyMatcher:
          matchers:
          - kindNamespaceNameMatcher: {kind: Secret, namespace: app, name: creds}
          - kindNamespaceNameMatcher: {kind: Secret, namespace: app, name: kept}
          - kindNamespaceNameMatcher: {kind: Secret, namespace: app, name: plain}
`), 0o644)
	got, err := Check(optionsFor(t, []string{rules}, inputs{desired: []string{desired}}))
	if err != nil {
		t.Fatal(err)
	}
	assertFindings(t, got, rules, []want{{Warning, 13, "kindNamespaceNameMatcher {kind: Secret, name: creds, namespace: app} names a versioned resource (kapp.k14s.io/versioned): kapp renames it creds-ver-2 before its rebase rules run",
		`andMatcher: {matchers: [{apiGroupKindMatcher: {apiGroup: "", kind: Secret}}, {hasNamespaceMatcher: {names: [app]}}, {hasAnnotationMatcher: {keys: [kapp.k14s.io/versioned]}}]}`}})
}
