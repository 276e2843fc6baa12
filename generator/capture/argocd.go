package capture

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Tracking is how Argo CD marks the objects an Application tracks: argocd-cm's
// application.resourceTrackingMethod.
type Tracking string

// Argo CD v3.6.1's tracking methods (pkg/apis/application/v1alpha1 TrackingMethod) and keys
// (common/common.go).
const (
	TrackingAnnotation         Tracking = "annotation" // Argo CD 3's default
	TrackingLabel              Tracking = "label"
	TrackingAnnotationAndLabel Tracking = "annotation+label"

	argoTrackingID    = "argocd.argoproj.io/tracking-id"
	argoInstanceLabel = "app.kubernetes.io/instance"
)

// Trackings are the methods, as argocd-cm spells them.
var Trackings = []Tracking{TrackingAnnotation, TrackingLabel, TrackingAnnotationAndLabel}

// argoSelector is the label selector to list with and the objects to keep among those listed, as
// Argo CD's controller decides an object is the Application's (util/argo/resource_tracking.go
// GetAppName, controller/state.go isSelfReferencedObj). With label tracking the label names the
// Application. With annotation tracking (and annotation+label, which reads the annotation), the
// tracking id APP:GROUP/KIND:NAMESPACE/NAME names it, and it must name the object itself: a
// tracking id copied onto another object (a controller copying annotations) is not tracking it.
// An annotation cannot be selected by the server, so every object is listed and filtered here.
func argoSelector(app string, method Tracking) (string, func(*unstructured.Unstructured) bool) {
	if method == TrackingLabel {
		return argoInstanceLabel + "=" + app, func(*unstructured.Unstructured) bool { return true }
	}
	return "", func(u *unstructured.Unstructured) bool {
		id, ok := u.GetAnnotations()[argoTrackingID]
		if !ok {
			return false
		}
		// ParseAppInstanceValue: APP:GROUP/KIND:NAMESPACE/NAME
		parts := strings.SplitN(id, ":", 3)
		if len(parts) != 3 || parts[0] != app {
			return false
		}
		gk, nsName := strings.Split(parts[1], "/"), strings.Split(parts[2], "/")
		if len(gk) != 2 || len(nsName) != 2 {
			return false
		}
		gvk := u.GroupVersionKind()
		// a cluster-scoped object's id holds the Application's destination namespace
		return gk[0] == gvk.Group && gk[1] == gvk.Kind && nsName[1] == u.GetName() && (u.GetNamespace() == "" || nsName[0] == u.GetNamespace())
	}
}

// ParseTracking reads a tracking method as argocd-cm spells it.
func ParseTracking(s string) (Tracking, error) {
	for _, t := range Trackings {
		if string(t) == s {
			return t, nil
		}
	}
	return "", fmt.Errorf("not a tracking method of Argo CD's: want one of %v", Trackings)
}
