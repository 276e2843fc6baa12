package verify

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"

	ctldiff "carvel.dev/kapp/pkg/kapp/diff"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Fingerprint identifies the resources one kapp change was made of: the existing and the new
// (rebased) resource as JSON, and whether kapp ignores the existing one (transient). kapp computes
// a change's op and text diff from these alone (diff.ChangeImpl: the noop and exists annotations
// are the new resource's, the YAML kapp diffs is encoded from the same objects), so two changes
// with one fingerprint get the same op and diff.
type Fingerprint [sha256.Size]byte

func fingerprint(ch ctldiff.Change) (Fingerprint, error) {
	h := sha256.New()
	for _, r := range []ctlres.Resource{ch.ExistingResource(), ch.NewResource()} {
		var bs []byte
		if r != nil {
			var err error
			if bs, err = json.Marshal(r.UnstructuredObject()); err != nil {
				return Fingerprint{}, fmt.Errorf("fingerprinting kapp's change: %w", err)
			}
		}
		var n [9]byte
		binary.BigEndian.PutUint64(n[:8], uint64(len(bs)))
		if r != nil {
			n[8] = 1
			if r.Transient() {
				n[8] = 2
			}
		}
		h.Write(n[:])
		h.Write(bs)
	}
	var f Fingerprint
	h.Sum(f[:0])
	return f, nil
}

// alone reports whether kapp's verdict on pair i depends on it and the configs only (Result.Alone).
func (in *inputs) alone(i int) bool {
	return len(in.context[i]) == 0 && in.pairConfigs == 0 && in.liveApp[i] != ""
}

// Shown asks kapp's engine, for n pairs that are each a changed copy of a pair, whether it shows
// the change: under both bases an update whose diff is not kapp's diff of the unchanged pair.
// baseline(i) is kapp's Result on the unchanged pair with the same configs and the same company
// (a Result that is Alone, or one from a call with the same pairs around it).
//
// kapp decides every base it is asked about; Shown asks no more than the answer needs. A change
// made of the same resources as the baseline's (same Fingerprint) has the baseline's op and diff,
// so kapp's text diff is not computed again; kapp's diff text is rendered only where both update;
// and once one base does not show the change the other is not asked (the live base goes first:
// without last-applied history to recalculate it is the cheaper).
func Shown(n int, pairAt func(i int) (Pair, error), baseline func(i int) Result, configs []*unstructured.Unstructured, progress func()) ([]bool, error) {
	shown := make([]bool, n)
	_, err := run(n, pairAt, configs, progress, func(in *inputs, w *worker, i int) error {
		rs, err := in.resources(i)
		if err != nil {
			return err
		}
		base := baseline(i)
		for _, b := range []Base{Live, LastApplied} {
			var differs bool
			err := catch(func() (err error) {
				differs, err = in.differs(w, i, rs, b, base)
				return err
			})
			if err != nil {
				return fmt.Errorf("%s base: %w", b, err)
			}
			if !differs {
				return nil
			}
		}
		shown[i] = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	return shown, nil
}

// differs reports whether kapp, under base b, updates pair i with another diff than baseline's.
func (in *inputs) differs(w *worker, i int, rs pairResources, b Base, baseline Result) (bool, error) {
	ch, err := in.change(w, i, rs, b)
	if err != nil {
		return false, err
	}
	f, err := fingerprint(ch)
	if err != nil {
		return false, err
	}
	if was, ok := baseline.Change[b]; ok && f == was {
		return false, nil // the baseline's change: its op and diff
	}
	if opName(ch.Op()) != OpUpdate {
		return false, nil
	}
	if baseline.Op[b] != OpUpdate {
		return true, nil
	}
	diff, err := textDiff(ch, maskRules(w.conf))
	return diff != baseline.Diff[b], err
}
