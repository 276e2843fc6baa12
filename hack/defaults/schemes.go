package main

import (
	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apiregistrationinstall "k8s.io/kube-aggregator/pkg/apis/apiregistration/install"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	// The API server's own defaulting functions for every built-in group, as classify links them.
	_ "k8s.io/kubernetes/pkg/apis/admissionregistration/install"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/authentication/install"
	_ "k8s.io/kubernetes/pkg/apis/authorization/install"
	_ "k8s.io/kubernetes/pkg/apis/autoscaling/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/certificates/install"
	_ "k8s.io/kubernetes/pkg/apis/coordination/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/discovery/install"
	_ "k8s.io/kubernetes/pkg/apis/events/install"
	_ "k8s.io/kubernetes/pkg/apis/flowcontrol/install"
	_ "k8s.io/kubernetes/pkg/apis/networking/install"
	_ "k8s.io/kubernetes/pkg/apis/node/install"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	_ "k8s.io/kubernetes/pkg/apis/rbac/install"
	_ "k8s.io/kubernetes/pkg/apis/resource/install"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"
	_ "k8s.io/kubernetes/pkg/apis/storage/install"
	_ "k8s.io/kubernetes/pkg/apis/storagemigration/install"
)

// schemes are the built-in kinds' scheme and those of the two servers beside kube-apiserver:
// CustomResourceDefinitions (apiextensions) and APIServices (kube-aggregator).
func schemes() []*runtime.Scheme {
	crds, aggregator := runtime.NewScheme(), runtime.NewScheme()
	apiextensionsinstall.Install(crds)
	apiregistrationinstall.Install(aggregator)
	return []*runtime.Scheme{legacyscheme.Scheme, crds, aggregator}
}

// schemeFor is the scheme that defaults a kind, as classify picks it; nil for none.
func schemeFor(gvk schema.GroupVersionKind) *runtime.Scheme {
	s := schemes()
	switch gvk.Group {
	case "apiextensions.k8s.io":
		return s[1]
	case "apiregistration.k8s.io":
		return s[2]
	}
	return s[0]
}
