// Package kappconv is the one home of kapp's conventions and of the versions rebasegen pins: kapp's
// annotation and label keys, its versioned names, and the versions of the libraries whose
// behaviour rebasegen reproduces (checked against the build info in a test, so a go.mod bump
// fails until these follow). It imports neither kapp nor ytt, so the stages that only need a key
// (load, pair, fielddiff) do not link them; kapp's and ytt's process-wide state (the ytt lock,
// kapp's colour and version) lives in internal/kappglobal.
package kappconv

// Versions go.mod pins, and KappOldest, the minimumRequiredVersion of every generated Config.
const (
	Kapp = "0.66.0" // carvel.dev/kapp
	YTT  = "0.53.0" // carvel.dev/ytt
	// KappOldest is the oldest kapp release whose Config, rebase and diff code (pkg/kapp/config,
	// diff, resources) read and apply the generated rules as Kapp's engine verifies them
	// (carvel-dev/kapp: `git diff v0.60.0 <v0.66.0> -- pkg/kapp/config pkg/kapp/diff
	// pkg/kapp/resources` changes preflightRules, a wait timeout, label ownership overrides and
	// two built-in rebase rules, a Namespace's kubernetes.io/metadata.name and a PVC's
	// volume.kubernetes.io/storage-provisioner annotation, which an older kapp still shows as an
	// update, never hides). kapp-controller v0.51.0 runs kapp v0.62.0 (its hack/dependencies.yml),
	// which refuses a Config asking for Kapp.
	KappOldest = "0.60.0"
	// KappController is github.com/vmware-tanzu/carvel-kapp-controller, as whose deploy a Package
	// (--package-cr) is rendered and a rules Secret read, and KappControllerKapp the kapp release it
	// deploys with (its hack/dependencies.yml): a Config that kapp refuses stops every deploy of the
	// package, whatever the kapp rebasegen links (Kapp) accepts.
	KappController     = "v0.51.0"
	KappControllerKapp = "0.62.0"
	Kubernetes         = "v1.37.2" // k8s.io/kubernetes, whose defaulting code is linked in (k8s.io/* v0.37.2)
	// ArgoCD is github.com/argoproj/argo-cd/v3 (and its gitops-engine), whose diff judges the
	// argocd target's ignoreDifferences.
	ArgoCD = "v3.6.1"
)
