package pair

import (
	"encoding/json"
	"sort"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/internal/kappconv"
)

// lastApplied is kubectl's copy of what it applied, which capture redacts as it does kapp's.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// unredact gives the values rebasegen capture redacted in a paired Secret (load.Redacted, in the
// live object's data and in the copies of what kapp or kubectl applied, where capture moved
// stringData into data) the manifest's values, in the form the manifest gives them: what the
// cluster holds there is unknown, so it is no difference, neither drift nor a change made in
// Git, and the real values never meet the placeholder. It returns the keys so given, sorted; a
// key the manifest no longer holds keeps the placeholder (kapp removes it, whatever its value).
func unredact(p *Pair) ([]string, error) {
	if p.ID.Group != "" || p.ID.Kind != "Secret" {
		return nil, nil
	}
	desired, live, err := p.Objects()
	if err != nil {
		return nil, err
	}
	data, _ := live.Object["data"].(map[string]any)
	var keys []string
	for k, v := range data {
		if v == load.Redacted {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	sort.Strings(keys)
	dd, _ := desired.Object["data"].(map[string]any)
	sd, _ := desired.Object["stringData"].(map[string]any)
	for _, k := range keys {
		if s, ok := sd[k].(string); ok {
			data[k] = fielddiff.Stored(s)
		} else if v, ok := dd[k]; ok {
			data[k] = v
		}
	}
	ann := live.GetAnnotations()
	for _, a := range []string{kappconv.Original, lastApplied} {
		var m map[string]any
		if json.Unmarshal([]byte(ann[a]), &m) != nil || m == nil {
			continue
		}
		od, _ := m["data"].(map[string]any)
		changed := false
		for _, k := range keys {
			if od[k] != load.Redacted {
				continue
			}
			if s, ok := sd[k].(string); ok {
				osd, _ := m["stringData"].(map[string]any)
				if osd == nil {
					osd = map[string]any{}
				}
				osd[k], m["stringData"] = s, osd
				delete(od, k)
				changed = true
			} else if v, ok := dd[k]; ok {
				od[k], changed = v, true
			}
		}
		if !changed {
			continue
		}
		if len(od) == 0 {
			delete(m, "data")
		}
		bs, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		ann[a] = string(bs)
	}
	live.SetAnnotations(ann)
	if p.Live, err = load.NewDoc(live); err != nil {
		return nil, err
	}
	return keys, nil
}
