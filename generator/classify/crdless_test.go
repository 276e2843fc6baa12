package classify

import (
	"strings"
	"testing"
)

// A custom resource whose CRD is not among the inputs: a CRD's schema can never default metadata
// other than name and generateName, so an annotation a webhook stamped is explained without it
// (admission of the applier's write, no hint to pass the CRD); a spec field still names the CRD
// to pass. Issue 25.
func TestMetadataOfACustomResourceWithoutItsCRD(t *testing.T) {
	const widget = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: ns\n%s%sspec: {size: 1%s}\n"
	kapp := "  managedFields:\n" + mf("kapp", "", `{f:spec: {f:size: {}}}`)
	desired := sprintf(widget, "", "", "")
	for _, tc := range []struct {
		name, managed string
		annotation    Class
	}{
		{"with managedFields", kapp, Admission},
		{"exported without managedFields", "", Unknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			live := sprintf(widget, "  annotations: {webhook.example.com/stamped: \"true\"}\n", tc.managed, ", color: blue")
			got := classifyYAML(t, desired, live)
			a, s := got[`metadata.annotations["webhook.example.com/stamped"]`], got["spec.color"]
			if a.Class != tc.annotation || strings.Contains(a.Evidence, "pass the CRD") || !strings.Contains(a.Evidence, "no CRD can default it") {
				t.Errorf("annotation: %s (%s), want %s saying no CRD can default it, without asking for the CRD", a.Class, a.Evidence, tc.annotation)
			}
			if s.Class != Unknown || !strings.Contains(s.Evidence, "pass the CRD of kind Widget") {
				t.Errorf("spec.color: %s (%s), want unknown naming the CRD to pass", s.Class, s.Evidence)
			}
		})
	}
}
