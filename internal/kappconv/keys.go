package kappconv

import (
	"crypto/md5"
	"fmt"
	"strconv"
	"strings"
)

// kapp's annotation and label keys and API names, as kapp v0.66.0 spells them (the file named
// with each is where kapp defines or reads it).
const (
	Prefix           = "kapp.k14s.io/"         // every key kapp owns starts with it
	ConfigAPIVersion = "kapp.k14s.io/v1alpha1" // apiVersion of a kapp Config (config/config.go)
	ConfigKind       = "Config"

	// ConfigLabel marks a ConfigMap whose data[ConfigKey] holds a kapp Config (config/conf.go).
	ConfigLabel = "kapp.k14s.io/config"
	ConfigKey   = "config.yml"

	AppLabel         = "kapp.k14s.io/app"         // app ownership label (resources/labeled_resources.go)
	AssociationLabel = "kapp.k14s.io/association" // resource association label (resources/labeled_resources.go)

	// IsAppLabel, with an empty value, marks the ConfigMap recording a kapp app, named after the
	// app with AppSuffix once migrated (app/apps.go, app/recorded_app.go).
	IsAppLabel = "kapp.k14s.io/is-app"
	AppSuffix  = ".apps.k14s.io"

	// IdentityAnnotation is removed by kapp from every object it lists (resources/identified_resources_list.go).
	IdentityAnnotation = "kapp.k14s.io/identity"
	// DisableDefaultLabelScoping on an object turns kapp's built-in label scoping rules off for
	// it (config/default.go labelScopingRules)
	DisableDefaultLabelScoping = "kapp.k14s.io/disable-default-label-scoping-rules"
	// DisableDefaultOwnership turns kapp's built-in ownership label rules off for the object.
	DisableDefaultOwnership = "kapp.k14s.io/disable-default-ownership-label-rules"
	// Original holds the manifest kapp last sent, as kapp sent it (diff/resource_with_history.go).
	Original = "kapp.k14s.io/original"
	// OriginalDiffMD5 holds the hex MD5 of kapp's diff of that apply (diff/resource_with_history.go).
	OriginalDiffMD5 = "kapp.k14s.io/original-diff-md5"
	// DisableOriginal on an object has kapp record no Original (diff/resource_with_history.go).
	DisableOriginal = "kapp.k14s.io/disable-original"
	// OriginalMaxLen: kapp records no Original longer than this (diff/resource_with_history.go annValMaxLen).
	OriginalMaxLen = 262144

	// UpdateStrategy on an object says how kapp updates it: in place (""), "fallback-on-replace"
	// (delete and create when the update is refused as invalid), "always-replace" or "skip"
	// (clusterapply/add_or_update_change.go).
	UpdateStrategy = "kapp.k14s.io/update-strategy"

	Versioned             = "kapp.k14s.io/versioned"               // diff/versioned_resource.go
	VersionedKeepOriginal = "kapp.k14s.io/versioned-keep-original" // diff/change_set_with_versioned_rs.go
	// VersionedExplicitRef is the annotation (also as a prefix, with a "." and any suffix) naming
	// a versioned resource whose NAME-ver-N kapp writes into it (diff/explicit_versioned_ref.go)
	VersionedExplicitRef = "kapp.k14s.io/versioned-explicit-ref"

	// On the object kapp applies, these make kapp apply nothing to the resource: noop (diff/change.go
	// op), exists on an existing resource (op keep), update-strategy skip (clusterapply
	// UpdateSkipStrategy).
	NoopAnnotation           = "kapp.k14s.io/noop"
	ExistsAnnotation         = "kapp.k14s.io/exists"
	UpdateStrategyAnnotation = UpdateStrategy
	// DisableWait on a resource has kapp not wait on it, nor evaluate a wait rule on it
	// (clusterapply/cluster_change.go WaitOp).
	DisableWait = "kapp.k14s.io/disable-wait"

	// Nonce "" in a manifest has kapp write a new value there on every deploy, so that every
	// deploy updates the resource; any other value fails the deploy (app/preparation.go addNonce).
	Nonce = "kapp.k14s.io/nonce"
	// NewNonce stands for the value kapp writes into a Nonce "" (the time of the deploy, which no
	// live object holds): a fixed one keeps every diff and report of the same inputs the same.
	NewNonce = "(new on every deploy)"
	// AppLabelValue stands for the AppLabel value of an app whose objects are compared before
	// kapp deployed any of them: kapp chooses it when it creates the app (its app ConfigMap).
	AppLabelValue = "(the app's, chosen by kapp)"

	// YTTPathsFromSecret, alone or followed by "." and a suffix, is the PackageInstall annotation
	// naming a Secret whose keys kapp-controller v0.51.0 adds as files to the package's first ytt
	// template step (pkg/packageinstall/app.go ExtYttPathsFromSecretNameAnnKey, secretNamesFromAnn).
	YTTPathsFromSecret = "ext.packaging.carvel.dev/ytt-paths-from-secret-name"
)

// HistoryAnnotations are removed by kapp from both sides before it diffs them
// (diff/resource_with_history.go removeAppliedResAnnKeysMods). A fresh slice on every call.
func HistoryAnnotations() []string {
	return []string{Original, "kapp.k14s.io/original-diff", OriginalDiffMD5, "kapp.k14s.io/original-diff-full"}
}

// versionSep separates a versioned resource's base name from its version (diff/versioned_resource.go nameSuffixSep).
const versionSep = "-ver-"

// SplitVersionedName is kapp's VersionedResource.BaseNameAndVersion (its fields are unexported):
// the name up to the last "-ver-" and what follows it, or the name and "" when it has none. The
// version need not be a number: kapp panics on such a name when it reads the version (Version()).
func SplitVersionedName(name string) (base, version string) {
	if i := strings.LastIndex(name, versionSep); i >= 0 {
		return name[:i], name[i+len(versionSep):]
	}
	return name, ""
}

// Recovered is the name a manifest gives the object kapp recorded (its kapp.k14s.io/original)
// under name, with annotations, and the version kapp gave it (-1: none): a versioned resource's
// record holds the NAME-ver-N kapp named it before applying it (assignNewNames), the package
// names it NAME (newcomer13 N13-2: recovered as NAME-ver-1, it was a pending create and delete).
func Recovered(name string, annotations map[string]string) (string, int) {
	if _, ok := annotations[Versioned]; !ok {
		return name, -1
	}
	base, ver := SplitVersionedName(name)
	if n, err := strconv.Atoi(ver); err == nil {
		return base, n
	}
	return name, -1
}

// VersionedName is the name kapp gives version n of a versioned resource named base
// (diff/versioned_resource.go SetBaseName).
func VersionedName(base string, n int) string { return base + versionSep + strconv.Itoa(n) }

// ResourceKey is kapp's unique key of a resource, without its version: namespace/group/kind/name
// (resources/unique_resources.go UniqueResourceKey).
func ResourceKey(namespace, group, kind, name string) string {
	return namespace + "/" + group + "/" + kind + "/" + name
}

// CreatedByKapp reports whether identity, a kapp.k14s.io/identity annotation, is the one kapp
// writes on a resource with key when it creates it (resources/identity_annotation.go Valid): kapp
// treats a labelled object without it as transient (a controller's), never deleting it.
func CreatedByKapp(identity, key string) bool {
	pieces := strings.Split(identity, ";")
	return pieces[0] == "v1" && len(pieces) == 3 && pieces[1] == key
}

// Association is the kapp.k14s.io/association label value kapp gives a resource with key:
// v1.<md5 of the key> (resources/association_label.go).
func Association(key string) string {
	return fmt.Sprintf("v1.%x", md5.Sum([]byte(key)))
}
