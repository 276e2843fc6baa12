package classify

import (
	"fmt"
	"strings"

	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"

	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// NameRefused says why the API server refuses to create obj under its name or namespace, with the
// validation refusing it, or "": its ValidateObjectMeta checks the name with the kind's name
// function (a Service's a DNS-1035 label, a Namespace's a DNS label, every other kind's, custom
// resources' too, a DNS subdomain) and the namespace as a namespace's name (newcomer15 N15-6: a
// Deployment renamed Web_1 was a pending create like any other, and kapp's deploy fails on it).
func NameRefused(obj *unstructured.Unstructured) string {
	nameFn, fn := apimachineryvalidation.NameIsDNSSubdomain, "NameIsDNSSubdomain"
	if obj.GroupVersionKind().Group == "" {
		switch obj.GetKind() {
		case "Service":
			nameFn, fn = corevalidation.ValidateServiceName, "ValidateServiceName"
		case "Namespace":
			nameFn, fn = corevalidation.ValidateNamespaceName, "ValidateNamespaceName"
		}
	}
	var why []string
	if msgs := nameFn(obj.GetName(), false); len(msgs) > 0 {
		why = append(why, fmt.Sprintf("metadata.name %s: %s (Kubernetes %s %s)", escape.Text(fmt.Sprintf("%q", obj.GetName())), strings.Join(msgs, "; "), kappconv.Kubernetes, fn))
	}
	if ns := obj.GetNamespace(); ns != "" {
		if msgs := corevalidation.ValidateNamespaceName(ns, false); len(msgs) > 0 {
			why = append(why, fmt.Sprintf("metadata.namespace %s: %s (Kubernetes %s ValidateNamespaceName)", escape.Text(fmt.Sprintf("%q", ns)), strings.Join(msgs, "; "), kappconv.Kubernetes))
		}
	}
	return strings.Join(why, "; ")
}
