package pair

import (
	"fmt"
	"strings"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/internal/escape"
)

// Deploy are the options of the kapp deploy that applies the desired objects: a Package's intoNs
// and mapNs (kapp-controller passes them to kapp deploy as --into-ns and --map-ns), and those of
// its rawOptions that change what kapp does.
type Deploy struct {
	IntoNamespace string
	MapNamespaces []string // src=dst
	From          string   // the file the options come from, for errors
	// DefaultUpdateStrategy is kapp deploy's --apply-default-update-strategy: the update strategy
	// of an object whose manifest names none (clusterapply AddOrUpdateChange.ApplyStrategy);
	// StrategyAt names the rawOption setting it.
	DefaultUpdateStrategy, StrategyAt string
	// NoWait names the rawOption setting kapp deploy's --wait to false ("": kapp waits): kapp then
	// waits on nothing it applies (clusterapply ClusterChange.WaitOp).
	NoWait string
}

// Places says that the options, not the manifests or -n, decide the namespaces.
func (o Deploy) Places() bool { return o.IntoNamespace != "" || len(o.MapNamespaces) > 0 }

// namespace is where kapp deploys a namespaced object that is in ns once -n applied: kapp
// (app/preparation.go placeIntoNamespace) puts every namespaced object into --into-ns, over
// the namespace it declares, then maps the result through --map-ns, failing the deploy for a
// namespace the map does not name.
func (o Deploy) namespace(d load.Doc, ns string) (string, error) {
	if o.IntoNamespace != "" {
		ns = o.IntoNamespace
	}
	if len(o.MapNamespaces) == 0 {
		return ns, nil
	}
	for _, kv := range o.MapNamespaces {
		src, dst, ok := strings.Cut(kv, "=")
		if !ok {
			return "", fmt.Errorf("%s: mapNs %q: kapp requires src-ns=dst-ns", o.From, kv)
		}
		if src == ns {
			return dst, nil
		}
	}
	return "", &load.Error{Source: d.Source, Field: "metadata.namespace", Msg: fmt.Sprintf("kapp deploys it into namespace %s, which the mapNs of %s does not map: kapp refuses the deploy (Expected to find mapped namespace for '%s')", escape.Text(ns), o.From, escape.Text(ns))}
}

// withNamespace is d, a namespaced object, in namespace ns.
func withNamespace(d load.Doc, ns string) (load.Doc, error) {
	o, err := d.Object()
	if err != nil {
		return load.Doc{}, err
	}
	o.SetNamespace(ns)
	return load.NewDoc(o)
}

// source is the namespace --map-ns maps to ns, the live objects' namespace pairing inferred: ns
// without a map naming it.
func (o Deploy) source(ns string) string {
	for _, kv := range o.MapNamespaces {
		if src, dst, _ := strings.Cut(kv, "="); dst == ns {
			return src
		}
	}
	return ns
}
