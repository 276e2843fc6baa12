package argocd

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
)

// Every value drawn for a quantity is a quantity of another amount than the manifest's and the
// live object's, in the same form: the API server would take it, and Argo CD's normalisation
// decodes it.
func TestQuantityDrawIsAQuantity(t *testing.T) {
	for _, c := range []struct{ old, live string }{
		{"1000m", "1"}, {"0.5", "500m"}, {"1024Mi", "1Gi"}, {"1000M", "1G"}, {"0.5Gi", "512Mi"},
		{"2048Mi", "2Gi"}, {"1e3", "1k"}, {"1Gi", "2Gi"}, {"-5", "-5"}, {"8", "9"},
	} {
		old, live := resource.MustParse(c.old), resource.MustParse(c.live)
		for range 300 {
			v, ok := differentFrom(c.old, map[string]any{"q": c.live}, fielddiff.FromFields([]string{"q"}))
			s, isString := v.(string)
			q, err := resource.ParseQuantity(s)
			if !ok || !isString || err != nil {
				t.Fatalf("%s drawn as %#v: not a quantity (%v)", c.old, v, err)
			}
			if q.Cmp(old) == 0 || q.Cmp(live) == 0 {
				t.Fatalf("%s drawn as %s: the amount of the manifest (%s) or the live object (%s)", c.old, s, c.old, c.live)
			}
		}
	}
}
