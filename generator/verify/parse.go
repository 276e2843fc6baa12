package verify

import (
	"encoding/json"
	"fmt"

	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// desiredResource parses a desired object the way kapp reads -f files (sigs.k8s.io/yaml, so numbers
// are float64): the recorded md5 was computed from exactly such an object.
func desiredResource(bs []byte) (ctlres.Resource, error) {
	return oneResource(ctlres.NewResourcesFromBytes(bs))
}

// desiredDecoded is desiredResource for the JSON encode wrote: the same objects, without reading
// the JSON as YAML. kapp's parse (sigs.k8s.io/yaml) turns the YAML it reads into JSON and decodes
// that with encoding/json; JSON that json.Marshal wrote comes out of that step as the same values,
// so decoding it directly gives what kapp's parse gives, and verification, which encodes every
// pair again for each question it asks kapp, no longer pays a YAML parse for each. Ops keeps
// kapp's parse: a deploy pays it.
func desiredDecoded(bs []byte) (ctlres.Resource, error) {
	var content map[string]any
	if err := json.Unmarshal(bs, &content); err != nil {
		return oneResource(nil, err)
	}
	if len(content) == 0 {
		return oneResource(nil, nil)
	}
	un := unstructured.Unstructured{Object: content}
	if !un.IsList() {
		return oneResource([]ctlres.Resource{ctlres.NewResourceUnstructured(un, ctlres.ResourceType{})}, nil)
	}
	list, err := un.ToList()
	if err != nil {
		return oneResource(nil, err)
	}
	var rs []ctlres.Resource
	for _, item := range list.Items {
		rs = append(rs, ctlres.NewResourceUnstructured(item, ctlres.ResourceType{}))
	}
	return oneResource(rs, nil)
}

// oneResource is the one resource a desired object's parse made (kapp's NewResourcesFromBytes
// makes the items of a List).
func oneResource(rs []ctlres.Resource, err error) (ctlres.Resource, error) {
	if err != nil {
		return nil, fmt.Errorf("parsing: %w", err)
	}
	if len(rs) != 1 {
		return nil, fmt.Errorf("expected one object, got %d (a List?)", len(rs))
	}
	return rs[0], nil
}

// liveResource decodes a live object the way client-go's dynamic client does (integers are int64).
func liveResource(bs []byte) (ctlres.Resource, error) {
	var un unstructured.Unstructured
	if err := un.UnmarshalJSON(bs); err != nil {
		return nil, fmt.Errorf("decoding live: %w", err)
	}
	return ctlres.NewResourceUnstructured(un, ctlres.ResourceType{}), nil
}
